"""A database set up the way Supabase sets up its own, for tenancy tests (issue 15).

What matters to segcite is reproduced, not the whole of Supabase:
- the Data API roles `anon` / `authenticated` (nologin) and `service_role` (bypassrls);
- `auth.uid()` reading the JWT's `sub` from `request.jwt.claims`, as PostgREST and Realtime set it;
- the `realtime` schema: `messages` (partitioned, RLS on, `select, insert, update` granted to the API roles),
  `topic()` reading the `realtime.topic` setting and `send()` inserting a broadcast, as Supabase's Realtime
  migrations define them (supabase/realtime, lib/realtime/tenants/repo/migrations);
- the `supabase_realtime` publication;
- Supabase's default grants on `public`, in either of its two regimes (`grants`):
  - "legacy" (older and self-hosted setups): everything that exists, and everything the connecting role
    creates later, is granted to the three API roles. That is the trap: a table created by LightRAG on first
    use is readable by `anon` unless segcite takes it back.
  - "none" (every Supabase project since 2026-10-30): the API roles get nothing on new tables and functions in
    `public`, only the schema's usage; functions are not even executable through PostgreSQL's PUBLIC default.
    A role reaches exactly what the migrations grant it.

Roles are cluster-wide, so they are created when missing and never dropped; everything else lives in the
database given and goes with it.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

API_ROLES = ("anon", "authenticated", "service_role")

_ROLES = """
do $$ begin
    if not exists (select 1 from pg_roles where rolname = 'anon') then
        create role anon nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'authenticated') then
        create role authenticated nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'service_role') then
        create role service_role nologin noinherit bypassrls;
    end if;
end $$;
"""

_AUTH = """
create schema auth;
grant usage on schema auth to anon, authenticated, service_role;
create function auth.uid() returns uuid language sql stable as $$
    select (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')::uuid
$$;
"""

_REALTIME = """
create schema realtime;
grant usage on schema realtime to anon, authenticated, service_role;
create table realtime.messages (
    topic       text not null,
    extension   text not null,
    payload     jsonb,
    event       text,
    private     boolean default false,
    updated_at  timestamp not null default now(),
    inserted_at timestamp not null default now(),
    id          uuid not null default gen_random_uuid(),
    primary key (id, inserted_at)
) partition by range (inserted_at);
create table realtime.messages_default partition of realtime.messages default;
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

create function realtime.topic() returns text language sql stable as $$
    select nullif(current_setting('realtime.topic', true), '')::text
$$;

create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void language plpgsql as $$
declare
    generated_id uuid;
    final_payload jsonb;
begin
    begin
        generated_id := gen_random_uuid();
        final_payload := case when payload ? 'id' then payload
                              else jsonb_set(payload, '{id}', to_jsonb(generated_id)) end;
        execute format('set local realtime.topic to %L', topic);
        insert into realtime.messages (id, payload, event, topic, private, extension)
        values (generated_id, final_payload, event, topic, private, 'broadcast');
    exception when others then
        raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
    end;
end $$;

create publication supabase_realtime;
"""

# Supabase's defaults on `public`: what exists now, and what the connecting role (the one segcite and
# LightRAG create their tables as) creates later.
_LEGACY_GRANTS = """
grant usage on schema public to anon, authenticated, service_role;
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
grant all on all functions in schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
"""


_NO_GRANTS = """
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public revoke execute on functions from public;
"""

GRANT_REGIMES = {"legacy": _LEGACY_GRANTS, "none": _NO_GRANTS}


def make_supabase_like(database_url: str, grants: str = "legacy") -> None:
    """Turn a new, empty database into a Supabase-like one (run before segcite touches it); `grants` names one
    of GRANT_REGIMES."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        for script in (_ROLES, _AUTH, _REALTIME, GRANT_REGIMES[grants]):
            conn.execute(script)


def as_role(conn: psycopg.Connection, role: str, claims: str | None = None, topic: str | None = None) -> None:
    """Become `role` for the current transaction, as PostgREST and Realtime do for a request: `claims` is the
    JWT's claims as JSON text (`auth.uid()` reads its `sub`), `topic` the Realtime channel being authorized."""
    conn.execute(sql.SQL("set local role {}").format(sql.Identifier(role)))
    conn.execute("select set_config('request.jwt.claims', %s, true)", (claims or "",))
    conn.execute("select set_config('realtime.topic', %s, true)", (topic or "",))
