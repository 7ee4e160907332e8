-- Full-text search at scale (design §4 "Scale", issue 26). 005's search counted every term's hits in the
-- workspace per query (a subquery per term and per row): its cost grew with the workspace (p95 0.72 s at 25k
-- segments). Here:
-- - CJK text is indexed as single characters and adjacent pairs (besides PostgreSQL's own words): the
--   question side splits CJK the same way, so a one- or two-character term matches inside a run of text.
-- - document frequencies are kept at ingest, by statement triggers on `document_segments`:
--   `segcite_term_stats(workspace_id, term, df)` and `segcite_workspace_stats(workspace_id, segments)`.
-- - the search ranks a bounded candidate set: every match of the rarest terms while their summed df stays
--   under a budget (exact), plus at most a budget of matches of the commoner terms; of the first 1024 terms
--   given (each cut to 256 characters), the 16 rarest that occur score a segment by summed idf (rare words still win), `ts_rank_cd` breaks ties. The query is at most
--   16 terms whatever the question's length, so tsquery's stack is never at risk.
-- Every function has a fixed search_path (Supabase's lint 0011); the terms' OR is built as tsquery text, not by
-- 005's aggregate (migration 008 drops it). Idempotent; plain PostgreSQL >= 15 and Supabase.

create or replace function segcite_cjk_grams(p_text text) returns text
    language sql immutable strict parallel safe set search_path = pg_catalog, public, pg_temp
as $$
    -- Every CJK character and every adjacent pair of a run (Hiragana, Katakana, Han, Hangul), space-separated.
    select coalesce(string_agg(
        case when i < length(run.m[1]) then substr(run.m[1], i, 1) || ' ' || substr(run.m[1], i, 2)
             else substr(run.m[1], i, 1) end, ' '), '')
    from regexp_matches(p_text, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+', 'g')
        as run(m),
        generate_series(1, length(run.m[1])) as i
$$;

create or replace function segcite_segment_tsv(p_text text) returns tsvector
    language sql immutable strict parallel safe set search_path = pg_catalog, public, pg_temp
as $$
    select to_tsvector('simple', p_text) || to_tsvector('simple', segcite_cjk_grams(p_text))
$$;

-- The indexed column becomes segcite_segment_tsv(text), once (a rewrite of the table; the GIN index with it).
do $$
begin
    if not exists (
        select 1 from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
        where d.adrelid = 'document_segments'::regclass and a.attname = 'tsv'
          and pg_get_expr(d.adbin, d.adrelid) like '%segcite_segment_tsv%'
    ) then
        alter table document_segments drop column if exists tsv;
        alter table document_segments add column tsv tsvector generated always as (segcite_segment_tsv(text)) stored;
    end if;
end $$;
create index if not exists document_segments_tsv_idx on document_segments using gin (tsv);

-- Filtered vector search (LightRAG's `WHERE workspace = $1 ORDER BY distance LIMIT k`) returns k whenever the
-- workspace holds k: pgvector's iterative index scans, as this database's default for every session. The worker
-- also sets them on LightRAG's connections (worker/rag.py); this default covers connections through a
-- transaction pooler, which take no session settings. Skipped, with a notice, where the role may not.
do $$
begin
    perform '[1]'::vector;  -- loads pgvector, so its settings are known to ALTER DATABASE
    execute format('alter database %I set hnsw.iterative_scan = relaxed_order', current_database());
    execute format('alter database %I set hnsw.ef_search = 100', current_database());
exception when others then
    raise notice 'segcite: pgvector defaults not set on this database (%); set them per connection', sqlerrm;
end $$;

-- Document frequencies, kept by the triggers below; filled from the segments present when first created.
do $$
begin
    if to_regclass('segcite_term_stats') is null then
        create table segcite_term_stats (
            workspace_id uuid not null,
            term         text not null,
            df           integer not null,
            primary key (workspace_id, term)
        );
        insert into segcite_term_stats (workspace_id, term, df)
        select s.workspace_id, t.term, count(*)
        from document_segments s, unnest(tsvector_to_array(s.tsv)) as t(term)
        group by 1, 2;
    end if;
    if to_regclass('segcite_workspace_stats') is null then
        create table segcite_workspace_stats (
            workspace_id uuid primary key,
            segments     bigint not null
        );
        insert into segcite_workspace_stats (workspace_id, segments)
        select workspace_id, count(*) from document_segments group by 1;
    end if;
end $$;

-- Rows in, rows out: one aggregate per statement (a COPY or a bulk insert of a document's segments is one). An
-- update is the old rows out, then the new rows in (text or workspace may have changed). One function for the
-- three triggers, each naming its transition tables; a branch reads only the tables its trigger has.
-- Security definer: whoever may write segments keeps the counts, without rights on the stats tables.
-- Keys are written in order, so two statements never wait on each other's rows crosswise.
create or replace function segcite_count_segments() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public, pg_temp
as $$
begin
    if tg_op <> 'INSERT' then
        with gone as (
            select r.workspace_id, t.term, count(*) as n
            from segcite_rows_out r, unnest(tsvector_to_array(r.tsv)) as t(term)
            group by 1, 2
        )
        update segcite_term_stats st set df = st.df - gone.n
        from gone where st.workspace_id = gone.workspace_id and st.term = gone.term;
        update segcite_workspace_stats ws set segments = ws.segments - gone.n
        from (select workspace_id, count(*) as n from segcite_rows_out group by 1) as gone
        where ws.workspace_id = gone.workspace_id;
    end if;
    if tg_op <> 'DELETE' then
        insert into segcite_term_stats as st (workspace_id, term, df)
        select r.workspace_id, t.term, count(*)
        from segcite_rows_in r, unnest(tsvector_to_array(r.tsv)) as t(term)
        group by 1, 2 order by 1, 2
        on conflict (workspace_id, term) do update set df = st.df + excluded.df;
        insert into segcite_workspace_stats as ws (workspace_id, segments)
        select r.workspace_id, count(*) from segcite_rows_in r group by 1 order by 1
        on conflict (workspace_id) do update set segments = ws.segments + excluded.segments;
    end if;
    if tg_op <> 'INSERT' then
        delete from segcite_term_stats st
        where st.df <= 0 and st.workspace_id in (select distinct workspace_id from segcite_rows_out);
        delete from segcite_workspace_stats ws
        where ws.segments <= 0 and ws.workspace_id in (select distinct workspace_id from segcite_rows_out);
    end if;
    return null;
end $$;

create or replace trigger segcite_segments_in after insert on document_segments
    referencing new table as segcite_rows_in for each statement execute function segcite_count_segments();
create or replace trigger segcite_segments_out after delete on document_segments
    referencing old table as segcite_rows_out for each statement execute function segcite_count_segments();
create or replace trigger segcite_segments_changed after update on document_segments
    referencing old table as segcite_rows_out new table as segcite_rows_in
    for each statement execute function segcite_count_segments();

-- The search. Candidates: every segment holding one of the rarest terms while their summed df stays within
-- `budget` (exact: rare words are never cut), plus at most `budget` holding the two next rarer terms together,
-- plus at most `budget` holding the next one. Each query runs as dynamic SQL, so it is planned with its
-- actual workspace and terms (a rare term: the GIN index; a small workspace: its btree index).
create or replace function segcite_search_segments(p_workspace uuid, p_terms text[], p_limit integer)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    budget constant integer := 2000;
    total bigint;
    queries tsquery[];
    weights float8[];
    exact integer := 0;
    covered bigint := 0;
    df_i bigint;
    candidates text := '';
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
    select array_agg(q order by df, q::text), array_agg(df order by df, q::text) into queries, weights
    from chosen;
    if queries is null then
        return;
    end if;
    foreach df_i in array weights loop
        exit when covered + df_i > budget;
        covered := covered + df_i;
        exact := exact + 1;
    end loop;
    if exact > 0 then
        candidates := 'select document_id, segment_index from document_segments '
                      'where workspace_id = $1 and tsv @@ (select string_agg(''('' || q::text || '')'', '' | '')::tsquery '
                      'from unnest($2[1:$3]) as q)';
    end if;
    if exact < cardinality(queries) then
        candidates := concat_ws(' union ', nullif(candidates, ''),
            format('(select document_id, segment_index from document_segments where workspace_id = $1 '
                   'and tsv @@ ($2[%1$s] && coalesce($2[%2$s], $2[%1$s])) limit %3$s)', exact + 1, exact + 2, budget),
            format('(select document_id, segment_index from document_segments where workspace_id = $1 '
                   'and tsv @@ $2[%1$s] limit %2$s)', exact + 1, budget));
    end if;
    -- idf = ln(1 + N / df), from the kept counts.
    select array_agg(ln(1 + total::float8 / w) order by ord) into weights
    from unnest(weights) with ordinality as x(w, ord);
    return query execute format(
        'select s.* from document_segments s join (%s) c using (document_id, segment_index) '
        'cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) where s.tsv @@ x.q) r '
        'where s.workspace_id = $1 '
        'order by r.score desc nulls last, '
        'ts_rank_cd(s.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) desc, '
        's.document_id, s.segment_index limit $5', candidates)
    using p_workspace, queries, exact, weights, least(p_limit, 1000);
end $$;

-- Nothing here is for the Data API roles: the stats are internal, the functions the workers' (as in 005).
alter table segcite_term_stats enable row level security;
alter table segcite_workspace_stats enable row level security;
revoke all on table segcite_term_stats, segcite_workspace_stats from public;
revoke execute on function segcite_search_segments(uuid, text[], integer), segcite_cjk_grams(text),
    segcite_segment_tsv(text), segcite_count_segments() from public;
do $$
declare
    api_role text;
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format('revoke all on table segcite_term_stats, segcite_workspace_stats from %I', api_role);
        execute format(
            'revoke execute on function segcite_search_segments(uuid, text[], integer), segcite_cjk_grams(text), '
            'segcite_segment_tsv(text), segcite_count_segments() from %I',
            api_role);
    end loop;
    -- The workers' Data API role (the `supabase` store) searches through the RPC, which reads the stats.
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant select on table segcite_term_stats, segcite_workspace_stats to service_role;
        grant execute on function segcite_search_segments(uuid, text[], integer) to service_role;
        -- and writes segments, whose indexed column is computed as the writer
        grant execute on function segcite_cjk_grams(text), segcite_segment_tsv(text) to service_role;
    end if;
end $$;
