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

-- The terms a search uses and its candidate query: `queries` (the 16 rarest terms that occur, rarest first), their
-- `idfs`, and `candidates`, SQL selecting (document_id, segment_index) with $1 the workspace, $2 `queries` and $3 the
-- scope; null when no term occurs. Internal to the two functions below.
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
    any_term constant text := '(select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)';
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
    if p_documents is not null then
        if (select coalesce(sum(d.segment_count), 0) from documents d
            where d.workspace_id = p_workspace and d.id = any(p_documents)) <= scope_exact then
            candidates := 'select document_id, segment_index from document_segments '
                          'where document_id = any($3) and workspace_id = $1 and tsv @@ ' || any_term;
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
    if exact > 0 then
        candidates := format('select document_id, segment_index from document_segments where workspace_id = $1%s '
                             'and tsv @@ (select string_agg(''('' || q::text || '')'', '' | '')::tsquery '
                             'from unnest($2[1:%s]) as q)', scoped, exact);
    end if;
    if exact < cardinality(queries) and not (exact > 0 and widest >= p_limit and idfs[exact] > rest) then
        candidates := concat_ws(' union ', candidates,
            format('(select document_id, segment_index from document_segments where workspace_id = $1%4$s '
                   'and tsv @@ ($2[%1$s] && coalesce($2[%2$s], $2[%1$s])) limit %3$s)', exact + 1, exact + 2, sample,
                   scoped),
            format('(select document_id, segment_index from document_segments where workspace_id = $1%3$s '
                   'and tsv @@ $2[%1$s] limit %2$s)', exact + 1, sample, scoped));
    end if;
end $$;

create or replace function segcite_search_candidates(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns table (document_id uuid, segment_index integer)
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is not null then
        -- Dynamic SQL: planned with the actual workspace, terms and scope (a rare term: the GIN index; a small
        -- workspace: its btree index; a small scope: the primary key).
        return query execute plan.candidates using p_workspace, plan.queries, p_documents;
    end if;
end $$;

create or replace function segcite_search_segments(
    p_workspace uuid, p_terms text[], p_limit integer, p_documents uuid[] default null
)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    plan record;
begin
    select * into plan from segcite_search_plan(p_workspace, p_terms, p_limit, p_documents);
    if plan.candidates is null then
        return;
    end if;
    -- Each candidate's row is fetched by its primary key (a lateral join), as in 013.
    return query execute format(
        'select s.* from (%s) c '
        'cross join lateral (select * from document_segments d where d.document_id = c.document_id '
        'and d.segment_index = c.segment_index and d.workspace_id = $1) s '
        'cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) where s.tsv @@ x.q) r '
        'order by r.score desc nulls last, '
        'ts_rank_cd(s.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) desc, '
        's.document_id, s.segment_index limit $5', plan.candidates)
    using p_workspace, plan.queries, p_documents, plan.idfs, least(p_limit, 1000);
end $$;

-- As 010's: nothing for the Data API roles; the workers' role (the `supabase` store) searches through the RPC.
revoke execute on function segcite_search_plan(uuid, text[], integer, uuid[]),
    segcite_search_candidates(uuid, text[], integer, uuid[]),
    segcite_search_segments(uuid, text[], integer, uuid[]) from public;
do $$
declare
    api_role text;
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format(
            'revoke execute on function segcite_search_plan(uuid, text[], integer, uuid[]), '
            'segcite_search_candidates(uuid, text[], integer, uuid[]), '
            'segcite_search_segments(uuid, text[], integer, uuid[]) from %I', api_role);
    end loop;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function segcite_search_plan(uuid, text[], integer, uuid[]),
            segcite_search_candidates(uuid, text[], integer, uuid[]),
            segcite_search_segments(uuid, text[], integer, uuid[]) to service_role;
    end if;
end $$;
