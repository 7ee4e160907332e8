-- Page images (design §3 "Page images", §5.8 `page_image`): one row per page of a document whose Document AI
-- JSON carries `pages[].image`, naming the object the worker stored it as (beside the document's JSON, in R2 or
-- the local folder) and its size in pixels. A citation's `page_image` comes from here; an app signs an R2 URL
-- for `image_key` and draws the citation's normalized `boxes` on it. Written at ingest, gone with the document.
-- Members read their workspace's rows (as document_segments); writes belong to the workers, and to
-- `service_role` for the `supabase` store (granted explicitly: since 2026-10-30 Supabase grants the Data API
-- roles nothing on new tables). Idempotent; the Supabase parts apply only where Supabase's roles and auth exist.

create table if not exists document_pages (
    document_id uuid not null references documents (id) on delete cascade,
    page_idx    integer not null check (page_idx >= 0),
    workspace_id uuid not null,
    image_key   text not null,
    mime        text not null,
    width       integer not null check (width > 0),
    height      integer not null check (height > 0),
    primary key (document_id, page_idx)
);
create index if not exists document_pages_image_key_idx on document_pages (image_key);

alter table document_pages enable row level security;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant select, insert, update, delete on table document_pages to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke all on table document_pages from anon;
    end if;
    if exists (select 1 from pg_roles where rolname = 'authenticated') then
        revoke insert, update, delete, truncate, references, trigger on table document_pages from authenticated;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'authenticated')
       or to_regprocedure('auth.uid()') is null then
        return;  -- plain PostgreSQL: RLS with no policy, only the owner reads
    end if;
    grant select on table document_pages to authenticated;
    if not exists (select 1 from pg_policies where tablename = 'document_pages' and policyname = 'workspace members') then
        create policy "workspace members" on document_pages for select to authenticated using (
            workspace_id in (select m.workspace_id from workspace_members m where m.user_id = auth.uid()));
    end if;
end $$;
