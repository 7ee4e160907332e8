-- Full-text search over one workspace's segments (design §4 retrieval, §5.5 the fallback's workspace tier),
-- one implementation for both stores: the `postgres` store calls it in SQL, the `supabase` store through
-- PostgREST's RPC. Each term's frequency in the workspace is counted (up to 1000 hits, enough to tell common
-- from rare); the 16 rarest terms that occur make the query. A segment scores the summed idf of the terms it
-- holds, so one rare word ("tax") outweighs two common ones ("company", "added"), which `ts_rank_cd` alone
-- (no idf) would not; `ts_rank_cd` breaks ties. Idempotent.

create or replace aggregate segcite_tsquery_or(tsquery) (sfunc = tsquery_or, stype = tsquery);

create or replace function segcite_search_segments(p_workspace uuid, p_terms text[], p_limit integer)
returns setof document_segments
language sql stable
as $$
    with term as (
        select plainto_tsquery('simple', t) as q from (select distinct t from unnest(p_terms) as t) as given
    ), counted as (
        select term.q, (
            select count(*) from (
                select 1 from document_segments s where s.workspace_id = p_workspace and s.tsv @@ term.q limit 1000
            ) as hits) as hits
        from term
        where numnode(term.q) > 0
    ), segments as (
        select count(*) as n from document_segments s where s.workspace_id = p_workspace
    ), chosen as (
        select counted.q, ln(1 + segments.n::float8 / counted.hits) as idf
        from counted, segments
        where counted.hits > 0
        order by counted.hits, counted.q::text
        limit 16
    ), query as (
        select segcite_tsquery_or(chosen.q) as q from chosen
    )
    select s.*
    from document_segments s, query
    where query.q is not null and s.workspace_id = p_workspace and s.tsv @@ query.q
    order by (select sum(chosen.idf) from chosen where s.tsv @@ chosen.q) desc,
             ts_rank_cd(s.tsv, query.q) desc, s.document_id, s.segment_index
    limit p_limit
$$;

revoke execute on function segcite_search_segments(uuid, text[], integer), segcite_tsquery_or(tsquery) from public;
do $$
declare
    api_role text;
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format(
            'revoke execute on function segcite_search_segments(uuid, text[], integer), segcite_tsquery_or(tsquery) '
            'from %I', api_role);
    end loop;
end $$;
