-- pgvector backs LightRAG's vector storage in the same database. Guarded: a server without the
-- extension still gets the app tables (LightRAG then reports the missing extension itself).
do $$
begin
    if exists (select 1 from pg_available_extensions where name = 'vector') then
        create extension if not exists vector;
    else
        raise notice 'segcite: pgvector is not installed on this server';
    end if;
end $$;
