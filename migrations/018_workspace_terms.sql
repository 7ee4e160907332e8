-- Full text read through each workspace's own posting lists (design §4 "Scale", issue 44). The GIN index on `tsv`
-- keeps one posting list per word for the whole table: a search in a workspace of 10,000 segments read the list of
-- a word found in 300,000 segments of the other workspaces, then dropped all but its own (p95 56-76 ms in workspaces
-- of 10,000-20,000 segments of a million). The index here keys each word by its workspace too
-- (`segcite_workspace_terms`: the word prefixed with 8 hex digits of the md5 of the workspace's id, whatever the id's
-- version), so a search reads the lists of its own workspace only, and a small workspace's search costs what it
-- costs in a table of its own. It replaces the `tsv` index: every search goes through it (016's functions, their
-- candidate queries rewritten here), and one GIN index is maintained at ingest, not two. Two workspaces whose ids
-- share the 8 digits only share lists: each query keeps `workspace_id = $1`. The ranking computes `ts_rank_cd`, which
-- only breaks ties, for the candidates that can still rank, not for all of them. Idempotent; plain PostgreSQL >= 15
-- and Supabase. Builds the index over the existing rows (writes to `document_segments` wait for it: 129 s for a
-- million segments on a 2-core machine).

-- The workspace's key of its words: 8 hex digits, the same for every row of the workspace.
create or replace function segcite_workspace_key(p_workspace uuid) returns text
language sql immutable strict parallel safe
set search_path = pg_catalog, pg_temp
as $$
    select left(md5(p_workspace::text), 8)
$$;

-- A segment's words, each keyed by its workspace: what the index holds. Its cost tells the planner that computing it
-- row by row (a filter on a sequential scan, or on a workspace's rows) costs far more than reading the index.
create or replace function segcite_workspace_terms(p_workspace uuid, p_tsv tsvector) returns text[]
language sql immutable strict parallel safe cost 1000
set search_path = pg_catalog, public, pg_temp
as $$
    select array(select k.key || t from unnest(tsvector_to_array(p_tsv)) as t)
    from (select segcite_workspace_key(p_workspace) as key) k
$$;

-- A GIN index's pending list (rows written since its last cleanup) is read whole by every search: PostgreSQL's 4 MB
-- (435 pages after an ingest of 4,000 segments) made a search of 320 segments take 2 ms more for each term it looked
-- up. 256 kB keeps that small; ingest moves the list into the index more often, in smaller batches.
create index if not exists document_segments_workspace_terms_idx on document_segments
    using gin (segcite_workspace_terms(workspace_id, tsv)) with (gin_pending_list_limit = 256);
alter index document_segments_workspace_terms_idx set (gin_pending_list_limit = 256);
drop index if exists document_segments_tsv_idx;
analyze document_segments;  -- (the planner's counts of the keys: a rare key is read through the index)

-- 016's plan, its candidate queries read through the workspace's keys. Same terms, bounds and candidates.
create or replace function segcite_search_plan(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[],
    out queries tsquery[], out idfs float8[], out candidates text
)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    budget constant integer := 2000;
    sample integer := 1000;  -- matches of the commoner terms ranked, each set (013); fewer in a big workspace
    scope_exact constant integer := 5000;  -- segments of a scope searched exactly
    total bigint;
    dfs bigint[];
    workspace_key constant text := segcite_workspace_key(p_workspace);
    key_sets text[];  -- each query's keys (its lexemes, keyed by the workspace: a segment holding it holds them all)
    holds constant text := 'segcite_workspace_terms(workspace_id, tsv) @> %L::text[]';
    exact integer := 0;
    covered bigint := 0;
    df_i bigint;
    widest bigint := 0;
    rest float8 := 0;
    scoped text := '';
    -- Through the workspace's keys, the workspace condition outside the index scan (a subquery it is not pushed into:
    -- else the planner intersects the matches with a bitmap of the workspace's rows, 600,000 entries, 55 ms).
    keyed constant text := 'select document_id, segment_index, tsv from (select document_id, segment_index, tsv, '
                           'workspace_id from document_segments where %s offset 0) as s where workspace_id = $1%s';
    -- The workspace's rows in order, each tested by its `tsv`, until enough match (016's, for words common in it).
    scanned text;
    pair tsquery;
    pair_keys text[];
    matches float8;
    listed bigint;
    sets text[] := '{}';
begin
    if p_limit is null or p_limit <= 0 or p_terms is null then
        return;
    end if;
    select ws.segments into total from segcite_workspace_stats ws where ws.workspace_id = p_workspace;
    if coalesce(total, 0) <= 0 then
        return;
    end if;
    -- A term's df is its rarest lexeme's (a term such as "ET-4760" parses into several, all required).
    with given as (
        select distinct left(t, 256) as t from unnest(p_terms[1:1024]) as t where t is not null
    ), term as (
        select plainto_tsquery('simple', given.t) as q,
               tsvector_to_array(to_tsvector('simple', given.t)) as lexemes
        from given
    ), counted as (
        select term.q, array(select workspace_key || l from unnest(term.lexemes) as l) as keys, (
            select min(coalesce(st.df, 0)) from unnest(term.lexemes) as l(term)
            left join segcite_term_stats st on st.workspace_id = p_workspace and st.term = l.term
        ) as df
        from term
        where numnode(term.q) > 0
    ), chosen as (
        select q, keys, df from counted where df > 0 order by df, q::text limit 16
    )
    select array_agg(q order by df, q::text), array_agg(df order by df, q::text),
           array_agg(chosen.keys::text order by df, q::text)
    into queries, dfs, key_sets from chosen;
    if queries is null then
        return;
    end if;
    -- A big workspace's commoner terms are in thousands of segments, any of which ranks as well as another: 250 of
    -- each set are ranked (ranking is most of the search's time there), 013's 1,000 in a workspace of up to 20,000.
    if total > 20000 then
        sample := 250;
    end if;
    -- idf = ln(1 + N / df), from the kept counts.
    select array_agg(ln(1 + total::float8 / d) order by ord) into idfs from unnest(dfs) with ordinality as x(d, ord);
    if p_documents is not null then
        if (select coalesce(sum(d.segment_count), 0) from documents d
            where d.workspace_id = p_workspace and d.id = any(p_documents)) <= scope_exact then
            candidates := format('select document_id, segment_index, tsv from document_segments '
                                 'where document_id = any($3) and workspace_id = $1 and tsv @@ %L::tsquery',
                                 segcite_tsquery_any(queries));
            return;
        end if;
        scoped := ' and document_id = any($3)';
    end if;
    foreach df_i in array dfs loop
        exit when covered + df_i > budget;
        covered := covered + df_i;
        exact := exact + 1;
        if numnode(queries[exact]) = 1 then  -- a one-word term matches df segments; a longer one may match fewer
            widest := greatest(widest, df_i);
        end if;
    end loop;
    -- A segment holding none of the rarest terms scores at most the others' idfs summed; every segment holding
    -- one scores at least the smallest of theirs. When that is more, and they give at least p_limit segments, no
    -- segment found only by a commoner term can rank among the first p_limit: those are not candidates (013).
    select coalesce(sum(w), 0) into rest from unnest(idfs[exact + 1:]) as w;
    -- Each query's keys are literals, not parameters: the planner sees how common they are in the workspace.
    if exact > 0 then
        candidates := format(keyed, (
            select '(' || string_agg(format(holds, k), ' or ') || ')' from unnest(key_sets[1:exact]) as k), scoped);
    end if;
    if exact < cardinality(queries) and not (exact > 0 and widest >= p_limit and idfs[exact] > rest) then
        if total > 0.2 * (select greatest(c.reltuples, 1) from pg_class c where c.oid = 'document_segments'::regclass)
        then
            scanned := 'select document_id, segment_index, tsv from (select document_id, segment_index, tsv, '
                       'workspace_id from document_segments where tsv @@ %L::tsquery offset 0) as s '
                       'where workspace_id = $1%s';
        else
            scanned := 'select document_id, segment_index, tsv from document_segments '
                       'where workspace_id = $1 and tsv @@ %L::tsquery%s';
        end if;
        -- The next two terms together, then the next one, `sample` segments of each. A term common in the workspace
        -- is found sooner by testing its rows in turn (about sample x total / matches of them) than by reading its
        -- posting list (a list of 130,000 items took 120 ms, the rows 2 ms): the cheaper of the two, from the kept
        -- counts (two terms' matches estimated as if independent).
        pair := queries[exact + 1] && coalesce(queries[exact + 2], queries[exact + 1]);
        pair_keys := key_sets[exact + 1]::text[] || coalesce(key_sets[exact + 2], key_sets[exact + 1])::text[];
        matches := dfs[exact + 1]::float8 * coalesce(dfs[exact + 2], total) / total;
        listed := dfs[exact + 1] + coalesce(dfs[exact + 2], 0);
        sets := sets || case when least(total, sample * total / greatest(matches, 1)) < listed
            then format(scanned, pair::text, scoped)
            else format(keyed, format(holds, pair_keys), scoped)
        end;
        matches := dfs[exact + 1];
        sets := sets || case when least(total, sample * total / greatest(matches, 1)) < matches
            then format(scanned, queries[exact + 1]::text, scoped)
            else format(keyed, format(holds, key_sets[exact + 1]), scoped)
        end;
        candidates := concat_ws(' union ', candidates,
            format('(%s limit %s)', sets[1], sample), format('(%s limit %s)', sets[2], sample));
    end if;
end $$;

-- 016's ranking, the same order: candidates by summed idf, then `ts_rank_cd`, then id. `ts_rank_cd` (most of the
-- ranking's time: 30 of 56 ms for 2,700 candidates) is computed only for those scoring at least the p_limit-th best
-- score: no other can be among the first p_limit.
create or replace function segcite_search_segments(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[]
)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set max_parallel_workers_per_gather = 0  -- (bounded sets: starting workers cost more than they save, 10-15 ms)
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is null then
        return;
    end if;
    -- The candidates are ranked on the `tsv` their own scan read; only the first p_limit rows are then fetched whole,
    -- by their primary key.
    return query execute format(
        'with scored as materialized (select c.document_id, c.segment_index, c.tsv, coalesce(r.score, 0) as score '
        'from (%s) c cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) '
        'where c.tsv @@ x.q) r), '
        'cut as (select coalesce(min(t.score), 0) as score from (select score from scored order by score desc '
        'limit $5) t) '
        'select s.* from (select sc.document_id, sc.segment_index, sc.score, '
        'ts_rank_cd(sc.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) '
        'as rank from scored sc, cut where sc.score >= cut.score '
        'order by sc.score desc, rank desc, sc.document_id, sc.segment_index limit $5) top '
        'cross join lateral (select * from document_segments d where d.document_id = top.document_id '
        'and d.segment_index = top.segment_index and d.workspace_id = $1) s '
        'order by top.score desc, top.rank desc, top.document_id, top.segment_index', plan.candidates)
    using p_workspace, plan.queries, p_documents, plan.idfs, least(p_limit, 1000);
end $$;

-- 016's candidates (the hash embedder's bounded search), without parallel workers, as the ranking above.
create or replace function segcite_search_candidates(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns table (document_id uuid, segment_index integer)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set max_parallel_workers_per_gather = 0
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is not null then
        return query execute format('select c.document_id, c.segment_index from (%s) c', plan.candidates)
            using p_workspace, plan.queries, p_documents;
    end if;
end $$;

-- Internal, as 016's: nothing for the Data API roles; the workers' role may compute what the index holds (it writes
-- the rows the index is of).
revoke execute on function segcite_workspace_key(uuid), segcite_workspace_terms(uuid, tsvector),
    segcite_search_plan(uuid, text[], integer, uuid[]),
    segcite_search_candidates(uuid, text[], integer, uuid[]), segcite_search_segments(uuid, text[], integer, uuid[])
    from public;
do $$
declare
    api_role text;
    functions constant text := 'segcite_workspace_key(uuid), segcite_workspace_terms(uuid, tsvector), '
        'segcite_search_plan(uuid, text[], integer, uuid[]), '
        'segcite_search_candidates(uuid, text[], integer, uuid[]), '
        'segcite_search_segments(uuid, text[], integer, uuid[])';
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format('revoke execute on function %s from %I', functions, api_role);
    end loop;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        execute format('grant execute on function %s to service_role', functions);
    end if;
end $$;
