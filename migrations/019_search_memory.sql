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
