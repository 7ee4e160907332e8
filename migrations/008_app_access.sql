-- The app's side (design §2, §11): what a signed-in member may write, the browser RPCs, and explicit grants, so
-- the same migrations are right whether Supabase grants the Data API roles everything on new objects in
-- `public` (older setups) or nothing (every project since 2026-10-30).
-- Everywhere: `created_by` columns, and a fixed search_path on functions of earlier migrations (Supabase's
-- linter, lint 0011, warns on any function without one; an aggregate cannot carry one, so it goes,
-- and 010's search does without). Where the Supabase roles exist: `service_role` gets what the workers do through
-- PostgREST. Where Supabase's `auth` schema exists: `authenticated` may open conversations, ask (its own
-- question and a pending, empty reply), register documents under its workspace's key prefix and mark them
-- `deleting` (RLS policies + column grants), directly or through 4 SECURITY INVOKER RPCs; limits on questions.
-- Idempotent.

alter table messages add column if not exists created_by uuid;
alter table conversations add column if not exists created_by uuid;
alter table documents add column if not exists created_by uuid;

alter function segcite_touch_updated_at() set search_path = pg_catalog, pg_temp;

-- 005's search used a custom aggregate, which cannot carry a search_path; 010_search_scale.sql replaces the
-- search with one that needs none.
drop aggregate if exists segcite_tsquery_or(tsquery);

-- service_role: what the workers do through PostgREST with the `supabase` store, and the inbox's polling RPCs.
do $$
declare
    t text;
    f regprocedure;
begin
    if not exists (select 1 from pg_roles where rolname = 'service_role') then
        return;
    end if;
    foreach t in array array['workspace_members', 'documents', 'document_segments', 'conversations', 'messages',
                             'segcite_inbox'] loop
        execute format('grant select, insert, update, delete on table %I to service_role', t);
    end loop;
    grant execute on function segcite_search_segments(uuid, text[], integer) to service_role;
    for f in select p.oid::regprocedure from pg_proc p
             where p.pronamespace = 'public'::regnamespace and p.proname like 'segcite\_inbox\_%'
               and p.prorettype <> 'trigger'::regtype loop
        execute format('grant execute on function %s to service_role', f);
    end loop;
end $$;

-- Members (only where Supabase's auth schema is). Functions are created in this block so that none exists on
-- plain PostgreSQL, where `auth.uid()` does not.
do $$
declare
    api_role text;
    f text;
    member_workspaces constant text :=
        '(select m.workspace_id from workspace_members m where m.user_id = auth.uid())';
begin
    if not exists (select 1 from pg_roles where rolname = 'authenticated')
       or to_regprocedure('auth.uid()') is null then
        raise notice 'segcite: no Supabase auth here; app access skipped';
        return;
    end if;

    -- Whoever writes through the Data API is recorded; the workers and the service role write null (no JWT).
    alter table messages alter column created_by set default auth.uid();
    alter table conversations alter column created_by set default auth.uid();
    alter table documents alter column created_by set default auth.uid();

    -- The R2 key rule: a member registers only objects under its workspace's prefix, so it cannot make segcite
    -- read another tenant's object. An app with another layout replaces segcite_document_key_prefix.
    create or replace function segcite_document_key_prefix(workspace_id uuid) returns text
        language sql stable
        set search_path = pg_catalog, pg_temp
    as 'select workspace_id::text || ''/''';

    create or replace function segcite_document_key_allowed(workspace_id uuid, key text) returns boolean
        language sql stable
        set search_path = pg_catalog, public, pg_temp
    as $f$
        select key is not null
           and starts_with(key, segcite_document_key_prefix(workspace_id))
           and length(key) > length(segcite_document_key_prefix(workspace_id))
           and key !~ '(^|/)\.\.(/|$)'  -- no `..` segment climbing out of the prefix on a file-backed store
    $f$;

    -- Whether a reply answers the member's own question in the same conversation. A function, because a
    -- policy on `messages` cannot read `messages` itself (PostgreSQL reports infinite recursion); it reads as
    -- the member, through 002's policy.
    create or replace function segcite_own_question(question_id uuid, conversation_id uuid) returns boolean
        language sql stable
        set search_path = pg_catalog, public, pg_temp
    as $f$
        select exists (
            select 1 from messages q
            where q.id = question_id and q.conversation_id = segcite_own_question.conversation_id
              and q.role = 'user' and q.created_by = auth.uid())
    $f$;

    -- Limits meet the RPCs and direct inserts alike. NOT VALID: rows written before this migration stay.
    alter table messages drop constraint if exists question_must_be_1_to_8000_characters;
    alter table messages add constraint question_must_be_1_to_8000_characters
        check (role <> 'user' or (content ~ '[^[:space:]]' and char_length(content) <= 8000)) not valid;

    create index if not exists messages_created_by_idx on messages (created_by) where role = 'user';
    create index if not exists messages_reply_to_idx on messages (reply_to) where reply_to is not null;

    -- SECURITY DEFINER to count the asker's questions in every workspace, even one it can no longer read;
    -- nobody may execute it (revoked below), it runs only as the trigger.
    create or replace function segcite_limit_questions_in_flight() returns trigger
        language plpgsql
        security definer
        set search_path = pg_catalog, public, pg_temp
    as $f$
    declare
        asker uuid;
        waiting integer;
    begin
        if new.role = 'user' then
            asker := new.created_by;
        elsif new.status = 'pending' and new.reply_to is not null then
            select q.created_by into asker from messages q where q.id = new.reply_to;
        end if;
        if asker is null then
            return new;
        end if;
        -- One asker's inserts one at a time, so two concurrent questions cannot both see room for one.
        perform pg_advisory_xact_lock(hashtext('segcite_questions_in_flight'), hashtext(asker::text));
        select count(*) into waiting
        from messages q join messages a on a.reply_to = q.id
        where q.created_by = asker and q.role = 'user'
          and a.role = 'assistant' and a.status in ('pending', 'processing');
        if waiting >= 5 then
            raise exception 'segcite: % questions of yours are still being answered (at most 5 at a time)', waiting
                using errcode = 'check_violation', hint = 'Ask again when one of them is answered.';
        end if;
        return new;
    end $f$;
    drop trigger if exists messages_questions_in_flight on messages;
    create trigger messages_questions_in_flight before insert on messages
        for each row execute function segcite_limit_questions_in_flight();

    -- Policies: what a member may insert or update. Reads stay 002's.
    drop policy if exists "members open conversations" on conversations;
    execute format(
        'create policy "members open conversations" on conversations for insert to authenticated with check (
            created_by = auth.uid() and workspace_id in %s)', member_workspaces);

    drop policy if exists "members ask" on messages;
    execute format(
        'create policy "members ask" on messages for insert to authenticated with check (
            created_by = auth.uid()
            and conversation_id in (select c.id from conversations c where c.workspace_id in %s)
            and metadata = ''{}''::jsonb and error is null
            and ((role = ''user'' and status = ''done'' and reply_to is null)
                 or (role = ''assistant'' and status = ''pending'' and content = ''''
                     and segcite_own_question(reply_to, conversation_id))))',
        member_workspaces);

    drop policy if exists "members register documents" on documents;
    execute format(
        'create policy "members register documents" on documents for insert to authenticated with check (
            created_by = auth.uid() and status = ''uploaded'' and workspace_id in %s
            and segcite_document_key_allowed(workspace_id, docai_raw_r2_key))', member_workspaces);

    drop policy if exists "members delete documents" on documents;
    execute format(
        'create policy "members delete documents" on documents for update to authenticated
            using (workspace_id in %1$s) with check (status = ''deleting'' and workspace_id in %1$s)',
        member_workspaces);

    -- Column grants: only what the policies judge. Anything else (ids, answer content, metadata, status of a
    -- message other than the two above, a document's progress or error) keeps its default or is refused.
    grant insert (workspace_id, title, created_by) on conversations to authenticated;
    grant insert (conversation_id, role, content, reply_to, status, created_by) on messages to authenticated;
    grant insert (workspace_id, filename, docai_raw_r2_key, content_hash, created_by) on documents to authenticated;
    grant update (status) on documents to authenticated;

    -- The browser RPCs. SECURITY INVOKER: each does what the member could do by direct insert or update, with
    -- membership checked first for a clear 42501.
    create or replace function segcite_require_member(workspace_id uuid, what text) returns void
        language plpgsql stable
        set search_path = pg_catalog, public, pg_temp
    as $f$
    begin
        if workspace_id is null or not exists (
            select 1 from workspace_members m
            where m.workspace_id = segcite_require_member.workspace_id and m.user_id = auth.uid()) then
            raise exception 'segcite: % is not in a workspace you are a member of', what
                using errcode = 'insufficient_privilege';
        end if;
    end $f$;

    create or replace function segcite_new_conversation(workspace_id uuid, title text default '') returns uuid
        language plpgsql
        set search_path = pg_catalog, public, pg_temp
    as $f$
    declare
        created uuid;
    begin
        perform segcite_require_member(segcite_new_conversation.workspace_id,
                                       format('workspace %s', segcite_new_conversation.workspace_id));
        insert into conversations (workspace_id, title)
        values (segcite_new_conversation.workspace_id, coalesce(segcite_new_conversation.title, ''))
        returning id into created;
        return created;
    end $f$;

    create or replace function segcite_ask(conversation_id uuid, content text) returns json
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
        insert into messages (conversation_id, role, content, status)
        values (segcite_ask.conversation_id, 'user', segcite_ask.content, 'done')
        returning id into question;
        insert into messages (conversation_id, role, reply_to)
        values (segcite_ask.conversation_id, 'assistant', question)
        returning id into reply;
        return json_build_object('user_message_id', question, 'assistant_message_id', reply);
    end $f$;

    -- The same content twice in a workspace (006's unique index) gives the live document that holds it.
    create or replace function segcite_register_document(workspace_id uuid, filename text, docai_raw_r2_key text,
                                                         content_hash text) returns uuid
        language plpgsql
        set search_path = pg_catalog, public, pg_temp
    as $f$
    #variable_conflict use_column  -- ON CONFLICT names columns; the arguments are always qualified
    declare
        registered uuid;
    begin
        perform segcite_require_member(segcite_register_document.workspace_id,
                                       format('workspace %s', segcite_register_document.workspace_id));
        if not segcite_document_key_allowed(segcite_register_document.workspace_id,
                                            segcite_register_document.docai_raw_r2_key) then
            raise exception 'segcite: docai_raw_r2_key must be an object under %',
                segcite_document_key_prefix(segcite_register_document.workspace_id)
                using errcode = 'insufficient_privilege';
        end if;
        insert into documents (workspace_id, filename, docai_raw_r2_key, content_hash)
        values (segcite_register_document.workspace_id, coalesce(segcite_register_document.filename, ''),
                segcite_register_document.docai_raw_r2_key, segcite_register_document.content_hash)
        on conflict (workspace_id, content_hash) where content_hash is not null and status <> 'deleted' do nothing
        returning id into registered;
        if registered is null then
            select d.id into registered from documents d
            where d.workspace_id = segcite_register_document.workspace_id
              and d.content_hash = segcite_register_document.content_hash and d.status <> 'deleted';
        end if;
        return registered;
    end $f$;

    create or replace function segcite_delete_document(document_id uuid) returns void
        language plpgsql
        set search_path = pg_catalog, public, pg_temp
    as $f$
    begin
        perform segcite_require_member(
            (select d.workspace_id from documents d where d.id = segcite_delete_document.document_id),
            format('document %s', segcite_delete_document.document_id));
        update documents set status = 'deleting'
        where id = segcite_delete_document.document_id and status not in ('deleting', 'deleted');
    end $f$;

    -- Execute: the RPCs and what the policies call, for members only; the trigger function for nobody.
    foreach f in array array[
        'segcite_new_conversation(uuid, text)', 'segcite_ask(uuid, text)',
        'segcite_register_document(uuid, text, text, text)', 'segcite_delete_document(uuid)',
        'segcite_require_member(uuid, text)', 'segcite_own_question(uuid, uuid)',
        'segcite_document_key_prefix(uuid)', 'segcite_document_key_allowed(uuid, text)',
        'segcite_limit_questions_in_flight()'] loop
        execute format('revoke execute on function %s from public', f);
        for api_role in select rolname from pg_roles where rolname in ('anon', 'authenticated', 'service_role') loop
            execute format('revoke execute on function %s from %I', f, api_role);
        end loop;
        if f <> 'segcite_limit_questions_in_flight()' then
            execute format('grant execute on function %s to authenticated', f);
        end if;
    end loop;
end $$;
