-- Full-text search scoped to chosen documents, and its candidate stage shared with the vector search (design §4
-- "Scale", issues 44 and 41). Same ranking as 013 (the 16 rarest of the question's terms score a segment by summed
-- idf, `ts_rank_cd` breaks ties), now in two functions:
-- - `segcite_search_candidates(workspace, terms, limit, documents)`: the bounded candidate set, (document_id,
--   segment_index) rows: every segment holding the rarest terms while their document frequencies add up to at most
--   2,000, and, where a segment lacking them could still rank, at most 1,000 holding the next two terms together
--   and 1,000 holding the next one (013's bound). The hash embedder's search ranks these by its vectors past
--   SEGCITE_EXACT_VECTOR_LIMIT segments (worker/vector_search.py), so neither search reads a whole big workspace.
-- - `segcite_search_segments(workspace, terms, limit, documents)`: the candidates ranked, best first.
-- `documents` (uuid[], default null: the whole workspace) scopes both, inside their queries: a scope of at most
-- 5,000 segments is searched exactly, through the primary key's `document_id` prefix (every segment of the scope
-- holding any of the terms); a bigger one adds `document_id = any(documents)` to each candidate query, planned with
-- the actual scope (a bitmap of the GIN index, filtered). The kept document frequencies are the workspace's.
-- Idempotent; plain PostgreSQL >= 15 and Supabase (the grants of 010, on the new signatures).

drop function if exists segcite_search_segments(uuid, text[], integer);

-- Any of these terms, as one tsquery's text.
create or replace function segcite_tsquery_any(p_queries tsquery[]) returns text
language sql immutable
set search_path = pg_catalog, public, pg_temp
as $$
    select string_agg('(' || q::text || ')', ' | ')::tsquery::text from unnest(p_queries) as q
$$;

-- The terms a search uses and its candidate query: `queries` (the 16 rarest terms that occur, rarest first), their
-- `idfs`, and `candidates`, SQL selecting (document_id, segment_index, tsv) with $1 the workspace and $3 the scope
-- ($2 unused); null when no term occurs. Internal to the two functions below.
create or replace function segcite_search_plan(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[],
    out queries tsquery[], out idfs float8[], out candidates text
)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    budget constant integer := 2000;
    sample constant integer := 1000;  -- matches of the commoner terms ranked, each set (013)
    scope_exact constant integer := 5000;  -- segments of a scope searched exactly
    total bigint;
    dfs bigint[];
    exact integer := 0;
    covered bigint := 0;
    df_i bigint;
    widest bigint := 0;
    rest float8 := 0;
    scoped text := '';
    source text;
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
        select term.q, (
            select min(coalesce(st.df, 0)) from unnest(term.lexemes) as l(term)
            left join segcite_term_stats st on st.workspace_id = p_workspace and st.term = l.term
        ) as df
        from term
        where numnode(term.q) > 0
    ), chosen as (
        select q, df from counted where df > 0 order by df, q::text limit 16
    )
    select array_agg(q order by df, q::text), array_agg(df order by df, q::text) into queries, dfs from chosen;
    if queries is null then
        return;
    end if;
    -- idf = ln(1 + N / df), from the kept counts.
    select array_agg(ln(1 + total::float8 / d) order by ord) into idfs from unnest(dfs) with ordinality as x(d, ord);
    -- A workspace holding a big share of the table: its rows are read from the GIN index's matches and filtered
    -- (a subquery the workspace condition is not pushed into). Else the planner intersects the matches with a bitmap
    -- of the workspace's rows, built from its btree: 600,000 entries, 73 ms.
    if total > 0.2 * (select greatest(c.reltuples, 1) from pg_class c where c.oid = 'document_segments'::regclass) then
        source := '(select document_id, segment_index, tsv, workspace_id from document_segments '
                  'where tsv @@ %L::tsquery offset 0) as s where workspace_id = $1';
    else
        source := 'document_segments where workspace_id = $1 and tsv @@ %L::tsquery';
    end if;
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
    -- Each query's terms are literals, not parameters: the planner sees how common they are (the GIN index for rare
    -- ones; for words common in the table, a small workspace's own rows through its btree: a bitmap of a word in a
    -- million segments, intersected with a workspace of 320, took 230 ms).
    if exact > 0 then
        candidates := format('select document_id, segment_index, tsv from ' || source || '%s',
                             segcite_tsquery_any(queries[1:exact]), scoped);
    end if;
    if exact < cardinality(queries) and not (exact > 0 and widest >= p_limit and idfs[exact] > rest) then
        candidates := concat_ws(' union ', candidates,
            format('(select document_id, segment_index, tsv from ' || source || '%s limit %s)',
                   (queries[exact + 1] && coalesce(queries[exact + 2], queries[exact + 1]))::text, scoped, sample),
            format('(select document_id, segment_index, tsv from ' || source || '%s limit %s)',
                   queries[exact + 1]::text, scoped, sample));
    end if;
end $$;

create or replace function segcite_search_candidates(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns table (document_id uuid, segment_index integer)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set enable_seqscan = off
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is not null then
        -- Dynamic SQL: planned with the actual workspace, terms and scope (a rare term: the GIN index; a small
        -- workspace: its btree index; a small scope: the primary key).
        return query execute format('select c.document_id, c.segment_index from (%s) c', plan.candidates)
            using p_workspace, plan.queries, p_documents;
    end if;
end $$;

create or replace function segcite_search_segments(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
set enable_seqscan = off
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is null then
        return;
    end if;
    -- The candidates are ranked on the `tsv` their own scan read; only the first p_limit rows are then fetched whole,
    -- by their primary key (013 fetched every candidate's row again, text, boxes and lines included).
    return query execute format(
        'select s.* from (select c.document_id, c.segment_index, r.score, '
        'ts_rank_cd(c.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) '
        'as rank from (%s) c '
        'cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) where c.tsv @@ x.q) r '
        'order by r.score desc nulls last, rank desc, c.document_id, c.segment_index limit $5) top '
        'cross join lateral (select * from document_segments d where d.document_id = top.document_id '
        'and d.segment_index = top.segment_index and d.workspace_id = $1) s '
        'order by top.score desc nulls last, top.rank desc, top.document_id, top.segment_index', plan.candidates)
    using p_workspace, plan.queries, p_documents, plan.idfs, least(p_limit, 1000);
end $$;

-- As 010's: nothing for the Data API roles; the workers' role (the `supabase` store) searches through the RPC.
revoke execute on function segcite_tsquery_any(tsquery[]), segcite_search_plan(uuid, text[], integer, uuid[]),
    segcite_search_candidates(uuid, text[], integer, uuid[]),
    segcite_search_segments(uuid, text[], integer, uuid[]) from public;
do $$
declare
    api_role text;
    functions constant text := 'segcite_tsquery_any(tsquery[]), segcite_search_plan(uuid, text[], integer, uuid[]), '
        'segcite_search_candidates(uuid, text[], integer, uuid[]), segcite_search_segments(uuid, text[], integer, uuid[])';
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format('revoke execute on function %s from %I', functions, api_role);
    end loop;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        execute format('grant execute on function %s to service_role', functions);
    end if;
end $$;
