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
    insert into segcite_inbox (task, target) values (wanted, new.id) on conflict (task, target) do nothing;
    perform pg_notify('segcite_inbox', wanted);
    return null;
end $$;

drop trigger if exists documents_inbox on documents;
create trigger documents_inbox after insert or update of status on documents
    for each row execute function segcite_inbox_record();
drop trigger if exists messages_inbox on messages;
create trigger messages_inbox after insert or update of status on messages
    for each row execute function segcite_inbox_record();

revoke all on table segcite_inbox from public;
revoke execute on function segcite_inbox_record() from public;
do $$
declare
    api_role text;
begin
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated') loop
        execute format('revoke all on table segcite_inbox from %I', api_role);
        execute format('revoke execute on function segcite_inbox_record() from %I', api_role);
    end loop;
end $$;
