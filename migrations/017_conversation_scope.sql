-- The sources a conversation is asked of (design §2, §5.10, §11; issue 41): `conversations.document_ids` (chosen for
-- the conversation) and `messages.document_ids` (a question's own choice, narrowing its conversation's for it); null
-- is no choice: the conversation's, else the whole workspace. The worker answers from those documents only.
-- Everywhere: a scope names 1 to 1,000 documents, no null among them, on a user message only; every one a document
-- of the conversation's workspace, checked by a trigger when the scope is written (SQLSTATE 42501 otherwise, nothing
-- written). A document deleted since simply drops out of the answers' scope; the row keeps what was chosen.
-- Where Supabase's `auth` schema exists: members may write both columns (column grants, as 008's), and the RPCs
-- `segcite_new_conversation` and `segcite_ask` take `document_ids default null` (a document outside the member's
-- workspaces: 42501, saying so, as every RPC does). Idempotent; plain PostgreSQL >= 15 and Supabase alike.

alter table conversations add column if not exists document_ids uuid[];
alter table messages add column if not exists document_ids uuid[];

alter table conversations drop constraint if exists scope_must_name_1_to_1000_documents;
alter table conversations add constraint scope_must_name_1_to_1000_documents check (
    document_ids is null
    or (cardinality(document_ids) between 1 and 1000 and array_position(document_ids, null) is null));
alter table messages drop constraint if exists scope_must_name_1_to_1000_documents;
alter table messages add constraint scope_must_name_1_to_1000_documents check (
    document_ids is null
    or (role = 'user' and cardinality(document_ids) between 1 and 1000 and array_position(document_ids, null) is null));

-- Every document of a scope is one of the conversation's workspace. SECURITY INVOKER: a member's write is checked with
-- what the member may read (002's policies), so a document of a workspace it is not in is no document of this one
-- either, and the error says nothing of it; the workers (the owner) see every row.
create or replace function segcite_check_scope() returns trigger
    language plpgsql
    set search_path = pg_catalog, public, pg_temp
as $$
declare
    workspace uuid;
    outside uuid;
begin
    if new.document_ids is null then
        return new;
    end if;
    if tg_table_name = 'conversations' then
        workspace := new.workspace_id;
    else
        select c.workspace_id into workspace from conversations c where c.id = new.conversation_id;
    end if;
    select d into outside from unnest(new.document_ids) as d
    where not exists (select 1 from documents doc where doc.id = d and doc.workspace_id = workspace)
    limit 1;
    if outside is not null then
        raise exception 'segcite: document % is not a document of workspace %', outside, workspace
            using errcode = 'insufficient_privilege',
                  hint = 'A conversation''s or a question''s document_ids name documents of its own workspace.';
    end if;
    return new;
end $$;

drop trigger if exists conversations_scope on conversations;
create trigger conversations_scope before insert or update of document_ids, workspace_id on conversations
    for each row execute function segcite_check_scope();
drop trigger if exists messages_scope on messages;
create trigger messages_scope before insert or update of document_ids, conversation_id on messages
    for each row execute function segcite_check_scope();

-- Nobody calls it: it runs as the triggers (Supabase grants execute on new functions to the API roles).
do $$
declare
    api_role text;
begin
    revoke execute on function segcite_check_scope() from public;
    for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated', 'service_role') loop
        execute format('revoke execute on function segcite_check_scope() from %I', api_role);
    end loop;
end $$;

-- Members (only where Supabase's auth schema is, as 008).
do $$
declare
    api_role text;
    f text;
begin
    if not exists (select 1 from pg_roles where rolname = 'authenticated')
       or to_regprocedure('auth.uid()') is null then
        raise notice 'segcite: no Supabase auth here; the scope RPCs skipped';
        return;
    end if;

    grant insert (document_ids) on conversations to authenticated;
    grant insert (document_ids) on messages to authenticated;

    -- Each document of a scope in a workspace the member belongs to: 42501 otherwise, as 008's RPCs say it.
    create or replace function segcite_require_scope(document_ids uuid[]) returns void
        language plpgsql stable
        set search_path = pg_catalog, public, pg_temp
    as $f$
    declare
        d uuid;
    begin
        foreach d in array coalesce(segcite_require_scope.document_ids, '{}') loop
            perform segcite_require_member((select doc.workspace_id from documents doc where doc.id = d),
                                           format('document %s', d));
        end loop;
    end $f$;

    -- 008's signatures give way to these (one function of each name, so a call by name is never ambiguous).
    drop function if exists segcite_new_conversation(uuid, text);
    drop function if exists segcite_ask(uuid, text);

    create or replace function segcite_new_conversation(workspace_id uuid, title text default '',
                                                        document_ids uuid[] default null) returns uuid
        language plpgsql
        set search_path = pg_catalog, public, pg_temp
    as $f$
    declare
        created uuid;
    begin
        perform segcite_require_member(segcite_new_conversation.workspace_id,
                                       format('workspace %s', segcite_new_conversation.workspace_id));
        perform segcite_require_scope(segcite_new_conversation.document_ids);
        insert into conversations (workspace_id, title, document_ids)
        values (segcite_new_conversation.workspace_id, coalesce(segcite_new_conversation.title, ''),
                segcite_new_conversation.document_ids)
        returning id into created;
        return created;
    end $f$;

    create or replace function segcite_ask(conversation_id uuid, content text, document_ids uuid[] default null)
        returns json
        language plpgsql
        set search_path = pg_catalog, public, pg_temp
    as $f$
    declare
        question uuid;
        reply uuid;
    begin
        perform segcite_require_member(
            (select c.workspace_id from conversations c where c.id = segcite_ask.conversation_id),
            format('conversation %s', segcite_ask.conversation_id));
        perform segcite_require_scope(segcite_ask.document_ids);
        insert into messages (conversation_id, role, content, status, document_ids)
        values (segcite_ask.conversation_id, 'user', segcite_ask.content, 'done', segcite_ask.document_ids)
        returning id into question;
        insert into messages (conversation_id, role, reply_to)
        values (segcite_ask.conversation_id, 'assistant', question)
        returning id into reply;
        return json_build_object('user_message_id', question, 'assistant_message_id', reply);
    end $f$;

    foreach f in array array[
        'segcite_new_conversation(uuid, text, uuid[])', 'segcite_ask(uuid, text, uuid[])',
        'segcite_require_scope(uuid[])'] loop
        execute format('revoke execute on function %s from public', f);
        for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated', 'service_role') loop
            execute format('revoke execute on function %s from %I', f, api_role);
        end loop;
        execute format('grant execute on function %s to authenticated', f);
    end loop;
end $$;
