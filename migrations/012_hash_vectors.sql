-- The offline `hash` embedder's vectors, searched exactly (design §4 "Scale", issue 26). Its vectors are signed
-- hashes of a segment's words and word pairs: about 150 non-zero dimensions of 1024, nearly orthogonal to each
-- other, so an HNSW graph cannot be navigated (recall@10 against exact 0.13-0.29 in a workspace of 100,000 chunks),
-- and LightRAG's own table holds each one dense and out of line (an exact scan there reads 2-4 kB a row: 1 s).
-- Here each is a `sparsevec` of its non-zero dimensions (~0.8 kB, in line), one row per retrieved segment, so
-- an exact scan of a workspace's rows costs about a microsecond a row. Written by the worker's RAG store next
-- to LightRAG's chunks; `model` names the embedder and its dimension (a change of SEGCITE_EMBEDDING_DIM starts
-- afresh, as LightRAG's tables do). Internal: RLS with no policy, nothing for the Data API roles.
-- Without pgvector there is no `sparsevec` type, and nothing is created (LightRAG reports the missing extension).

do $$
begin
    if to_regtype('sparsevec') is null then
        raise notice 'segcite: pgvector >= 0.7 is not installed: no segcite_hash_vectors';
        return;
    end if;
    create table if not exists segcite_hash_vectors (
        model         text not null,
        workspace_id  uuid not null,
        document_id   uuid not null,
        segment_index integer not null check (segment_index >= 0),
        embedding     sparsevec not null,
        -- Workspace first: the search reads one workspace's rows (a bitmap scan of this index), and a document's
        -- rows are written together, so they share pages. No foreign key: like LightRAG's chunks, the rows are
        -- the RAG store's, written and deleted with a document's chunks.
        primary key (workspace_id, document_id, segment_index, model)
    );
    alter table segcite_hash_vectors enable row level security;
    revoke all on table segcite_hash_vectors from public;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke all on table segcite_hash_vectors from anon;
    end if;
    if exists (select 1 from pg_roles where rolname = 'authenticated') then
        revoke all on table segcite_hash_vectors from authenticated;
    end if;
end $$;
