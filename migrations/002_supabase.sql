-- Row-level security and Realtime. RLS is enabled everywhere (the owner, which the workers connect as,
-- bypasses it); policies and the publication are created only where Supabase's pieces exist, so the same
-- file applies to plain PostgreSQL. Idempotent.

alter table workspace_members enable row level security;
alter table documents enable row level security;
alter table document_segments enable row level security;
alter table conversations enable row level security;
alter table messages enable row level security;

do $$
declare
    t text;
begin
    if not exists (select 1 from pg_roles where rolname = 'authenticated')
       or to_regprocedure('auth.uid()') is null then
        raise notice 'segcite: no Supabase auth here; RLS policies skipped';
        return;
    end if;

    if not exists (select 1 from pg_policies where tablename = 'workspace_members' and policyname = 'members read own') then
        create policy "members read own" on workspace_members for select to authenticated
            using (user_id = auth.uid());
    end if;

    foreach t in array array['documents', 'document_segments', 'conversations'] loop
        if not exists (select 1 from pg_policies where tablename = t and policyname = 'workspace members') then
            execute format(
                'create policy "workspace members" on %I for select to authenticated using (
                    workspace_id in (select m.workspace_id from workspace_members m where m.user_id = auth.uid()))',
                t);
        end if;
    end loop;

    if not exists (select 1 from pg_policies where tablename = 'messages' and policyname = 'workspace members') then
        create policy "workspace members" on messages for select to authenticated using (
            conversation_id in (
                select c.id from conversations c
                join workspace_members m on m.workspace_id = c.workspace_id
                where m.user_id = auth.uid()));
    end if;

    -- Private broadcast channels: a member may receive `workspace:<id>` and `conversation:<id>` topics.
    if to_regclass('realtime.messages') is not null
       and not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                       and policyname = 'segcite members receive') then
        create policy "segcite members receive" on realtime.messages for select to authenticated using (
            exists (
                select 1 from workspace_members m
                where m.user_id = auth.uid()
                  and (realtime.topic() = 'workspace:' || m.workspace_id::text
                       or realtime.topic() in (
                           select 'conversation:' || c.id::text from conversations c
                           where c.workspace_id = m.workspace_id))));
    end if;
end $$;

do $$
declare
    t text;
begin
    if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
        raise notice 'segcite: no supabase_realtime publication here; skipped';
        return;
    end if;
    foreach t in array array['documents', 'messages'] loop
        if not exists (select 1 from pg_publication_tables
                       where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = t) then
            execute format('alter publication supabase_realtime add table public.%I', t);
        end if;
    end loop;
end $$;
