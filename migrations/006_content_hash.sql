-- Design §9: re-ingesting the same bytes into the same workspace reuses the document instead of making a
-- duplicate that would crowd the context. `content_hash` is the hex SHA-256 of what was uploaded (written by
-- whoever creates the row: the app, or `segcite ingest`); null for rows written before this migration or
-- without one. At most one live (not deleted) document of a workspace has a given hash, so two uploads of
-- the same bytes racing each other still make one document. Idempotent.

alter table documents add column if not exists content_hash text;

create unique index if not exists documents_workspace_content_idx on documents (workspace_id, content_hash)
    where content_hash is not null and status <> 'deleted';
