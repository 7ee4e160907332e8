-- Design §3 "Fields": Document AI's own label -> value pairs are segments of kind `field`. Idempotent.

alter table document_segments drop constraint if exists document_segments_kind_check;
alter table document_segments add constraint document_segments_kind_check
    check (kind in ('paragraph', 'heading', 'table', 'list', 'text', 'header', 'footer', 'field'));
