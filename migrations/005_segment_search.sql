-- Full-text search over one workspace's segments (design §4 retrieval, §5.5 the fallback's workspace tier),
-- one implementation for both stores: the `postgres` store calls it in SQL, the `supabase` store through
-- PostgREST's RPC. Each term's frequency in the workspace is counted (up to 1000 hits, enough to tell common
-- from rare), and only the 16 rarest terms that occur make the query, so common words never decide the
-- ranking; `ts_rank_cd` orders the hits. Idempotent.

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
    ), chosen as (
        select segcite_tsquery_or(rare.q) as q
        from (select q from counted where hits > 0 order by hits, q::text limit 16) as rare
    )
    select s.*
    from document_segments s, chosen
    where chosen.q is not null and s.workspace_id = p_workspace and s.tsv @@ chosen.q
    order by ts_rank_cd(s.tsv, chosen.q) desc, s.document_id, s.segment_index
    limit p_limit
$$;

-- Supabase exposes functions in `public` to its Data API roles: only the workers (owner, service_role) search.
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
