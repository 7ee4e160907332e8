-- Core tables of design §2. Plain PostgreSQL >= 15 and Supabase alike; idempotent.

create table if not exists workspace_members (
    workspace_id uuid not null,
    user_id      uuid not null,
    role         text not null default 'member',
    created_at   timestamptz not null default now(),
    primary key (workspace_id, user_id)
);

create table if not exists documents (
    id               uuid primary key default gen_random_uuid(),
    workspace_id     uuid not null,
    filename         text not null default '',
    status           text not null default 'uploaded'
                     check (status in ('uploaded', 'parsed', 'ingesting', 'ingested', 'failed', 'deleted')),
    docai_raw_r2_key text,
    page_count       integer check (page_count >= 0),
    segment_count    integer check (segment_count >= 0),
    error            text,
    progress         real not null default 0 check (progress >= 0 and progress <= 1),
    created_at       timestamptz not null default now(),
    updated_at       timestamptz not null default now()
);
create index if not exists documents_workspace_idx on documents (workspace_id);
create index if not exists documents_status_idx on documents (status, updated_at);

create table if not exists document_segments (
    document_id   uuid not null references documents (id) on delete cascade,
    segment_index integer not null check (segment_index >= 0),
    workspace_id  uuid not null,
    page_idx      integer not null check (page_idx >= 0),
    kind          text not null check (kind in ('paragraph', 'heading', 'table', 'list', 'text')),
    text          text not null,
    char_start    integer,
    char_end      integer,
    bbox          jsonb,
    -- 'simple': no stemming, so French or German text is searchable as written; rapidfuzz reranks.
    tsv           tsvector generated always as (to_tsvector('simple', text)) stored,
    primary key (document_id, segment_index),
    check (char_start is null or char_end is null or char_start <= char_end)
);
create index if not exists document_segments_workspace_idx on document_segments (workspace_id);
create index if not exists document_segments_tsv_idx on document_segments using gin (tsv);

create table if not exists conversations (
    id           uuid primary key default gen_random_uuid(),
    workspace_id uuid not null,
    title        text not null default '',
    created_at   timestamptz not null default now()
);
create index if not exists conversations_workspace_idx on conversations (workspace_id);

create table if not exists messages (
    id              uuid primary key default gen_random_uuid(),
    conversation_id uuid not null references conversations (id) on delete cascade,
    role            text not null check (role in ('user', 'assistant')),
    reply_to        uuid references messages (id) on delete set null,
    content         text not null default '',
    status          text not null default 'pending'
                    check (status in ('pending', 'processing', 'done', 'failed')),
    metadata        jsonb not null default '{}'::jsonb,
    error           text,
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    check (role = 'assistant' or reply_to is null)
);
create index if not exists messages_conversation_idx on messages (conversation_id, created_at);
create index if not exists messages_status_idx on messages (status, updated_at);

create or replace function segcite_touch_updated_at() returns trigger language plpgsql as $$
begin
    new.updated_at := now();
    return new;
end $$;

drop trigger if exists documents_touch on documents;
create trigger documents_touch before update on documents
    for each row execute function segcite_touch_updated_at();
drop trigger if exists messages_touch on messages;
create trigger messages_touch before update on messages
    for each row execute function segcite_touch_updated_at();
