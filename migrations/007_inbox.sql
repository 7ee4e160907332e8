-- The inbox (design §11): the database is how work enters segcite. A row entering a state that needs work
-- (a document `uploaded` or `deleting`, an assistant message `pending`) records an entry in `segcite_inbox`
-- in the writer's own transaction, and NOTIFYs `segcite_inbox`: a rolled-back write starts nothing, a committed
-- one is never lost. Workers take entries with FOR UPDATE SKIP LOCKED, enqueue the Celery task and delete the
-- entry in one transaction. One entry per (task, target) waits at a time. Idempotent.

alter table documents drop constraint if exists documents_status_check;
alter table documents add constraint documents_status_check
    check (status in ('uploaded', 'parsed', 'ingesting', 'ingested', 'failed', 'deleting', 'deleted'));

create table if not exists segcite_inbox (
    task       text not null check (task in ('ingest_document', 'delete_document', 'answer_message')),
    target     uuid not null,
    created_at timestamptz not null default now(),
    -- Set by the polling taker (no database connection, only the service key): an entry claimed through the
    -- RPC is hidden until then, and taken again if its taker never confirmed it.
    claimed_until timestamptz,
    primary key (task, target)
);
create index if not exists segcite_inbox_created_idx on segcite_inbox (created_at);
alter table segcite_inbox enable row level security;

-- SECURITY DEFINER so that whoever writes the row (a member through the Data API, an Edge Function) records
-- the entry without any right on the inbox itself; nobody may execute it directly (revoked below).
create or replace function segcite_inbox_record() returns trigger
    language plpgsql
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
declare
    wanted text;
begin
    if tg_table_name = 'documents' then
        wanted := case new.status when 'uploaded' then 'ingest_document' when 'deleting' then 'delete_document' end;
    elsif new.role = 'assistant' and new.status = 'pending' then
        wanted := 'answer_message';
    end if;
    if wanted is null or (tg_op = 'UPDATE' and old.status is not distinct from new.status) then
        return null;
    end if;
    -- An entry already waiting stays as it is; one claimed by the polling taker is released, so this newer
    -- transition is taken again after the taker confirms the older one (it confirms by its claim's stamp).
    insert into segcite_inbox (task, target) values (wanted, new.id)
        on conflict (task, target) do update set claimed_until = null where segcite_inbox.claimed_until is not null;
    perform pg_notify('segcite_inbox', wanted);
    return null;
end $$;

drop trigger if exists documents_inbox on documents;
create trigger documents_inbox after insert or update of status on documents
    for each row execute function segcite_inbox_record();
drop trigger if exists messages_inbox on messages;
create trigger messages_inbox after insert or update of status on messages
    for each row execute function segcite_inbox_record();

-- The service-role RPCs, for workers that reach the database only through PostgREST (SEGCITE_STORE=supabase
-- without a database connection): record work, claim a batch for a lease, confirm what was enqueued, count.
-- SECURITY DEFINER so that they need no right on the inbox table; only the workers' role may execute them.
create or replace function segcite_inbox_add(p_task text, p_target uuid) returns void
    language sql
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
    insert into segcite_inbox (task, target) values (p_task, p_target) on conflict (task, target) do nothing;
    select pg_notify('segcite_inbox', p_task);
$$;

-- Entries nobody holds (never claimed, or a lease that ran out: its taker died), oldest first; each is hidden
-- for `p_lease_seconds`. SKIP LOCKED: takers claiming at once get disjoint batches.
create or replace function segcite_inbox_claim(p_limit integer, p_lease_seconds integer)
    returns table (task text, target uuid, created_at timestamptz, claimed_until timestamptz)
    language sql
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
    with free as (
        select i.task, i.target from segcite_inbox i
        where i.claimed_until is null or i.claimed_until < now()
        order by i.created_at
        limit greatest(p_limit, 0)
        for update skip locked
    )
    update segcite_inbox i set claimed_until = now() + make_interval(secs => greatest(p_lease_seconds, 1))
    from free where i.task = free.task and i.target = free.target
    returning i.task, i.target, i.created_at, i.claimed_until;
$$;

-- Confirm entries whose tasks were enqueued: deleted only while still held by that claim (same stamp), so a
-- transition recorded after the claim (which released it) is taken again. Returns how many were deleted.
create or replace function segcite_inbox_done(p_tasks text[], p_targets uuid[], p_claimed_until timestamptz[])
    returns integer
    language sql
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
    with gone as (
        delete from segcite_inbox i
        using unnest(p_tasks, p_targets, p_claimed_until) as done(task, target, claimed_until)
        where i.task = done.task and i.target = done.target and i.claimed_until = done.claimed_until
        returning 1
    )
    select count(*)::integer from gone;
$$;

-- What `segcite status` shows: entries waiting per task kind and the oldest one's age in seconds.
create or replace function segcite_inbox_stats()
    returns table (task text, waiting bigint, oldest_seconds double precision)
    language sql
    stable
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
    select i.task, count(*), extract(epoch from now() - min(i.created_at))::double precision
    from segcite_inbox i group by i.task order by i.task;
$$;

-- Whether an entry still waits (what `segcite ingest` says when its document has not moved).
create or replace function segcite_inbox_holds(p_task text, p_target uuid) returns boolean
    language sql
    stable
    security definer
    set search_path = public, pg_catalog, pg_temp
as $$
    select exists (select 1 from segcite_inbox i where i.task = p_task and i.target = p_target);
$$;

revoke all on table segcite_inbox from public;
revoke execute on function segcite_inbox_record() from public;
revoke execute on function segcite_inbox_add(text, uuid) from public;
revoke execute on function segcite_inbox_claim(integer, integer) from public;
revoke execute on function segcite_inbox_done(text[], uuid[], timestamptz[]) from public;
revoke execute on function segcite_inbox_stats() from public;
revoke execute on function segcite_inbox_holds(text, uuid) from public;
do $$
declare
    api_role text;
    rpc text;
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format('revoke all on table segcite_inbox from %I', api_role);
        execute format('revoke execute on function segcite_inbox_record() from %I', api_role);
        foreach rpc in array array['segcite_inbox_add(text, uuid)', 'segcite_inbox_claim(integer, integer)',
                                   'segcite_inbox_done(text[], uuid[], timestamptz[])', 'segcite_inbox_stats()', 'segcite_inbox_holds(text, uuid)'] loop
            execute format('revoke execute on function %s from %I', rpc, api_role);
        end loop;
    end loop;
    -- Supabase's workers' role (SEGCITE_STORE=supabase): the RPCs, and nothing on the table itself.
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function segcite_inbox_add(text, uuid) to service_role;
        grant execute on function segcite_inbox_claim(integer, integer) to service_role;
        grant execute on function segcite_inbox_done(text[], uuid[], timestamptz[]) to service_role;
        grant execute on function segcite_inbox_stats() to service_role;
        grant execute on function segcite_inbox_holds(text, uuid) to service_role;
    end if;
end $$;
