-- Ingest and search at a million segments (design §4 "Scale", issue 44). Idempotent; plain PostgreSQL >= 15 and
-- Supabase. Replaces function bodies only (no table or index is rebuilt).

-- 018's keyed words, the same array computed in one expression: 018 called `segcite_workspace_key` from a subquery,
-- and each of those calls (a SQL function with its own search_path, so never inlined) cost more than the rest of the
-- row's work: 27 ms for 100 segments against 6 ms. The key is `segcite_workspace_key`'s, written out. An index
-- expression may have its function replaced by one returning the same values: the index stays valid.
create or replace function segcite_workspace_terms(p_workspace uuid, p_tsv tsvector) returns text[]
language sql immutable strict parallel safe cost 1000
set search_path = pg_catalog, public, pg_temp
as $$
    select array(select left(md5(p_workspace::text), 8) || t from unnest(tsvector_to_array(p_tsv)) as t)
$$;

-- No sequential scan of the table where the plan meant the workspace's own rows: a workspace of 50,000 segments
-- tested "its rows in turn" for two words found in nearly all of them, and the planner, taking the matches as spread
-- over the table, scanned it from the start: 600,000 rows of another workspace first, 1.1 s (through the workspace's
-- index: 8 ms). A big workspace's own scan has no other path, and is still a sequential one.
--
-- 018's ranking with ties broken by the segments' own text, not by their ids: a document's id is a random uuid, so
-- two ingests of the same files ranked tied segments differently (and the context, and so the answer, could move
-- between two runs of the same code). Candidates by summed idf, then `ts_rank_cd`; then the md5 of the `tsv` (its
-- words and positions: the text's), then the segment's index, then the id. The md5 is computed for the p_limit best
-- and those tied with the last of them only.
create or replace function segcite_search_segments(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[]
)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set max_parallel_workers_per_gather = 0  -- (bounded sets: starting workers cost more than they save, 10-15 ms)
set enable_seqscan = off  -- (see below)
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is null then
        return;
    end if;
    return query execute format(
        'with scored as materialized (select c.document_id, c.segment_index, c.tsv, coalesce(r.score, 0) as score '
        'from (%s) c cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) '
        'where c.tsv @@ x.q) r), '
        'cut as (select coalesce(min(t.score), 0) as score from (select score from scored order by score desc '
        'limit $5) t), '
        'ranked as (select sc.document_id, sc.segment_index, sc.tsv, sc.score, '
        'ts_rank_cd(sc.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) '
        'as rank from scored sc, cut where sc.score >= cut.score order by sc.score desc, rank desc '
        'fetch first ($5) rows with ties) '
        'select s.* from (select r.document_id, r.segment_index, r.score, r.rank, md5(r.tsv::text) as tie '
        'from ranked r order by r.score desc, r.rank desc, tie, r.segment_index, r.document_id limit $5) top '
        'cross join lateral (select * from document_segments d where d.document_id = top.document_id '
        'and d.segment_index = top.segment_index and d.workspace_id = $1) s '
        'order by top.score desc, top.rank desc, top.tie, top.segment_index, top.document_id', plan.candidates)
    using p_workspace, plan.queries, p_documents, plan.idfs, least(p_limit, 1000);
end $$;

-- 018's plan, the same terms, bounds and sets, each set found the cheaper way by a cost that counts what is read.
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
    matches float8;
    sets text[] := '{}';
    -- What finding a set costs, in microseconds (measured in a workspace of 600,000 segments, in memory): an item of
    -- a posting list read into a bitmap (the bitmap then walked), an item of two lists intersected by the index (it
    -- skips through the longer one), a row fetched to be tested, a row tested in turn.
    per_item constant float8 := 1;
    per_merged constant float8 := 0.17;
    per_fetch constant float8 := 5;
    per_row constant float8 := 1.5;
    cost_scan float8;
    cost_both float8;
    cost_rarer float8;
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
        -- The next two terms together, then the next one, `sample` segments of each, each set found the cheapest way
        -- by the kept counts (two terms' matches estimated as if independent): the workspace's rows tested in turn
        -- until enough match (about sample x total / matches of them: cheapest for common terms), the index's
        -- intersection of both terms' lists, or the rarer term's list with each of its rows tested. 018 weighed a
        -- row tested against a list item, one for one, and counted both lists in full: for a pair whose rarer term is
        -- in 2,500 segments and the other in 460,000 it tested 85,000 rows (90-180 ms; its rarer list: 3 ms).
        pair := queries[exact + 1] && coalesce(queries[exact + 2], queries[exact + 1]);
        matches := greatest(dfs[exact + 1]::float8 * coalesce(dfs[exact + 2], total) / total, 1);
        cost_scan := per_row * least(total, sample * total / matches);
        cost_both := per_merged * (dfs[exact + 1] + least(coalesce(dfs[exact + 2], 0), 20 * dfs[exact + 1]))
                     + per_fetch * least(matches, sample);
        cost_rarer := per_item * dfs[exact + 1] + per_fetch * least(dfs[exact + 1], sample * dfs[exact + 1] / matches);
        sets := sets || case
            when cost_scan <= least(cost_both, cost_rarer) then format(scanned, pair::text, scoped)
            when cost_both <= cost_rarer then
                format(keyed, format(holds, key_sets[exact + 1]::text[] || key_sets[exact + 2]::text[]), scoped)
            else format(keyed, format(holds, key_sets[exact + 1]) || format(' and tsv @@ %L::tsquery', pair::text),
                        scoped)
        end;
        matches := dfs[exact + 1];
        sets := sets || case
            when per_row * least(total, sample * total / matches) < per_item * matches + per_fetch * least(matches, sample)
            then format(scanned, queries[exact + 1]::text, scoped)
            else format(keyed, format(holds, key_sets[exact + 1]), scoped)
        end;
        candidates := concat_ws(' union ', candidates,
            format('(%s limit %s)', sets[1], sample), format('(%s limit %s)', sets[2], sample));
    end if;
end $$;

-- 018's candidates (the hash embedder's bounded search), with no sequential scan either, as the ranking above.
create or replace function segcite_search_candidates(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns table (document_id uuid, segment_index integer)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set max_parallel_workers_per_gather = 0
set enable_seqscan = off
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
