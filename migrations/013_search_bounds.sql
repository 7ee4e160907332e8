-- Full-text search whose cost follows the answer (design §4 "Scale", issue 26), sharpened from 010 after
-- bench/bench_scale.py asked questions in the corpus's own words (before, its questions used another vocabulary
-- and matched almost nothing): "What about <six Zipf-distributed words>?" took 86 / 192 ms p50 / p95 in a
-- workspace of 100,000 segments, and as much at 10,000, because
-- - every candidate was joined to its row by hashing the whole workspace (the planner's estimate of a few dozen
--   candidates was off), so the workspace was read on every question;
-- - a common word (in most segments) added 2,000 candidates even when no segment lacking the rare words could
--   rank among the first `p_limit`.
-- Candidates now reach their rows by primary key, and commoner terms are dropped when their idfs summed cannot
-- reach the rarest terms' smallest (a bound: the first `p_limit` are 010's). Where they are kept, 1,000 of their
-- matches are ranked (each set), not 2,000. Same signature and grants.

create or replace function segcite_search_segments(p_workspace uuid, p_terms text[], p_limit integer)
returns setof document_segments
language plpgsql stable
set search_path = pg_catalog, public, pg_temp
as $$
declare
    budget constant integer := 2000;
    -- Matches of the commoner terms ranked, each set: any of thousands (a word in most segments), so a smaller
    -- sample costs little (p95 of the full-text search 122 -> 97 ms at 100,000 segments against 2,000).
    sample constant integer := 1000;
    total bigint;
    queries tsquery[];
    weights float8[];
    exact integer := 0;
    covered bigint := 0;
    df_i bigint;
    widest bigint := 0;
    rest float8 := 0;
    commoner boolean;
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
        if numnode(queries[exact]) = 1 then  -- a one-word term matches df segments; a longer one may match fewer
            widest := greatest(widest, df_i);
        end if;
    end loop;
    -- idf = ln(1 + N / df), from the kept counts.
    select array_agg(ln(1 + total::float8 / w) order by ord) into weights
    from unnest(weights) with ordinality as x(w, ord);
    -- A segment holding none of the rarest terms scores at most the others' idfs summed; every segment holding
    -- one scores at least the smallest of theirs. When that is more, and they give at least p_limit segments,
    -- no segment found only by a commoner term can rank among the first p_limit: those are not candidates (a
    -- question of common words besides a rare one then ranks the rare one's segments, not 2,000 more of each
    -- common one). Every term still scores the candidates.
    select coalesce(sum(w), 0) into rest from unnest(weights[exact + 1:]) as w;
    commoner := exact < cardinality(queries) and not (exact > 0 and widest >= p_limit and weights[exact] > rest);
    if exact > 0 then
        candidates := 'select document_id, segment_index from document_segments '
                      'where workspace_id = $1 and tsv @@ (select string_agg(''('' || q::text || '')'', '' | '')::tsquery '
                      'from unnest($2[1:$3]) as q)';
    end if;
    if commoner then
        candidates := concat_ws(' union ', nullif(candidates, ''),
            format('(select document_id, segment_index from document_segments where workspace_id = $1 '
                   'and tsv @@ ($2[%1$s] && coalesce($2[%2$s], $2[%1$s])) limit %3$s)', exact + 1, exact + 2, sample),
            format('(select document_id, segment_index from document_segments where workspace_id = $1 '
                   'and tsv @@ $2[%1$s] limit %2$s)', exact + 1, sample));
    end if;
    -- Each candidate's row is fetched by its primary key (a lateral join): joined by hash, the planner read the
    -- whole workspace to find a few thousand candidates (62 ms at 10,000 segments, growing with the workspace).
    return query execute format(
        'select s.* from (%s) c '
        'cross join lateral (select * from document_segments d where d.document_id = c.document_id '
        'and d.segment_index = c.segment_index and d.workspace_id = $1) s '
        'cross join lateral (select sum(x.idf) as score from unnest($2, $4) as x(q, idf) where s.tsv @@ x.q) r '
        'order by r.score desc nulls last, '
        'ts_rank_cd(s.tsv, (select string_agg(''('' || q::text || '')'', '' | '')::tsquery from unnest($2) as q)) desc, '
        's.document_id, s.segment_index limit $5', candidates)
    using p_workspace, queries, exact, weights, least(p_limit, 1000);
end $$;
