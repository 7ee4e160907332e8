-- Design §3: segments carry their line geometry, and Layout Parser's page furniture has kinds of its own.
-- Idempotent.

alter table document_segments add column if not exists lines jsonb;

alter table document_segments drop constraint if exists document_segments_kind_check;
alter table document_segments add constraint document_segments_kind_check
    check (kind in ('paragraph', 'heading', 'table', 'list', 'text', 'header', 'footer'));
