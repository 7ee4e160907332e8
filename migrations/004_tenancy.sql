-- Tenancy (design §2, §4). On Supabase every table created in `public` is granted to the Data API roles
-- (`anon`, `authenticated`) by default privileges; RLS alone does not cover TRUNCATE, and a table without
-- RLS is open. Here:
-- - internal tables (LightRAG's `lightrag_*`, created lazily on first use of a workspace, and the migration
--   log) get RLS with no policy and no grant to `anon` / `authenticated` / PUBLIC: only their owner and
--   `service_role` (bypassrls) read them. `segcite_secure_internal_tables()` does it for every such table
--   present; the worker calls it right after LightRAG creates its tables, `migrate` after every run.
-- - app tables: nothing for `anon`; `select` only for `authenticated`, whose rows the policies of
--   002_supabase.sql choose. Writes belong to the workers (owner or service_role).
-- - the Realtime policy also requires a broadcast's own topic to be the channel's, so a member who sets
--   `realtime.topic` to their own channel cannot read other channels' rows.
-- Roles and Supabase pieces are looked up first, so plain PostgreSQL gets RLS and nothing else. Idempotent.

create or replace function segcite_secure_internal_tables() returns integer
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $$
declare
    target record;
    api_role text;
    changed integer := 0;
begin
    -- Workers starting together all migrate: one caller at a time, so no two ever ALTER or REVOKE the same
    -- table at once (catalog updates racing on one row can fail with "tuple concurrently updated").
    perform pg_advisory_xact_lock(hashtext('segcite_secure_internal_tables'));
    for target in
        select c.oid::regclass as rel, c.relrowsecurity as rls,
               exists (select 1 from aclexplode(c.relacl) a
                       where a.grantee = 0  -- PUBLIC
                          or a.grantee in (select oid from pg_roles where rolname in ('anon', 'authenticated')))
                   as granted
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p')
          and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\_%'
          and (c.relname like 'lightrag\_%' or c.relname = 'segcite_migrations')
    loop
        -- Only what is missing is done: ALTER TABLE takes an exclusive lock, and this runs on every worker's
        -- first use of a workspace, while other workers may be reading these tables.
        if not target.rls then
            execute format('alter table %s enable row level security', target.rel);
        end if;
        if target.granted then
            execute format('revoke all on table %s from public', target.rel);
            for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
                execute format('revoke all on table %s from %I', target.rel, api_role);
            end loop;
        end if;
        if not target.rls or target.granted then
            changed := changed + 1;
        end if;
    end loop;
    return changed;
end $$;

do $$
declare
    t text;
    supabase_auth boolean := exists (select 1 from pg_roles where rolname = 'authenticated')
                             and to_regprocedure('auth.uid()') is not null;
begin
    foreach t in array array['workspace_members', 'documents', 'document_segments', 'conversations', 'messages'] loop
        if exists (select 1 from pg_roles where rolname = 'anon') then
            execute format('revoke all on table %I from anon', t);
        end if;
        if exists (select 1 from pg_roles where rolname = 'authenticated') then
            execute format('revoke insert, update, delete, truncate, references, trigger on table %I from authenticated', t);
        end if;
        if supabase_auth then  -- where 002's policies exist, they are how members read their workspace
            execute format('grant select on table %I to authenticated', t);
        end if;
    end loop;

    -- Supabase grants execute on new functions in `public` to the API roles: PostgREST would expose these as RPCs.
    revoke execute on function segcite_secure_internal_tables(), segcite_touch_updated_at() from public;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke execute on function segcite_secure_internal_tables(), segcite_touch_updated_at() from anon;
    end if;
    if exists (select 1 from pg_roles where rolname = 'authenticated') then
        revoke execute on function segcite_secure_internal_tables(), segcite_touch_updated_at() from authenticated;
    end if;

    if exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
               and policyname = 'segcite members receive') then
        alter policy "segcite members receive" on realtime.messages using (
            topic = realtime.topic()
            and exists (
                select 1 from workspace_members m
                where m.user_id = auth.uid()
                  and (realtime.topic() = 'workspace:' || m.workspace_id::text
                       or realtime.topic() in (
                           select 'conversation:' || c.id::text from conversations c
                           where c.workspace_id = m.workspace_id))));
    end if;
end $$;

select segcite_secure_internal_tables();
