-- Segments of kind `header` / `footer` (page furniture: stored, never sent to the RAG store) and each
-- segment's line geometry, `lines` (design §2, §3): null for rows written before, and where the input has no
-- lines. Plain PostgreSQL >= 15 and Supabase alike; idempotent.

alter table document_segments add column if not exists lines jsonb;

do $$
begin
    -- 001 wrote the kind check inline, so PostgreSQL named it document_segments_kind_check.
    if not exists (
        select 1 from pg_constraint
        where conrelid = 'document_segments'::regclass
          and conname = 'document_segments_kind_check'
          and pg_get_constraintdef(oid) like '%''footer''%'
    ) then
        alter table document_segments drop constraint if exists document_segments_kind_check;
        alter table document_segments add constraint document_segments_kind_check
            check (kind in ('paragraph', 'heading', 'table', 'list', 'text', 'header', 'footer'));
    end if;
end $$;
