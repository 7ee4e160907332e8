-- The parse stage (design §2, §3a): a document whose object is a PDF or an image is parsed into Document AI JSON
-- before it is ingested: `uploaded -> parsing -> parsed -> ingesting -> ingested`.
--
-- The app registers a PDF or an image exactly as it registers JSON (segcite_register_document, or a direct insert,
-- with its key in `docai_raw_r2_key`): the inbox path is unchanged, and so are 008's policies, column grants and
-- RPCs. The worker knows the file by its bytes; it records the original's key in `source_r2_key` and points
-- `docai_raw_r2_key` at the shards it writes beside it (`<key>.docai/0001.json`…). Members read the new column
-- as they read the row (002's policy); nobody but the workers writes it: no column grant is given here, and on
-- setups that grant the Data API roles everything, 008 revoked the table-wide insert and update already.
-- Idempotent; the same on Supabase and on plain PostgreSQL.

alter table documents add column if not exists source_r2_key text;
comment on column documents.source_r2_key is
    'The PDF or image this document was parsed from (set by segcite); docai_raw_r2_key then holds its shards.';

alter table documents drop constraint if exists documents_status_check;
alter table documents add constraint documents_status_check
    check (status in ('uploaded', 'parsing', 'parsed', 'ingesting', 'ingested', 'failed', 'deleting', 'deleted'));
