-- A deleted document holds no segments, so its row counts none (issue 34): deletes now write segment_count 0, and
-- this clears the count of documents deleted before. Idempotent: a second run finds nothing to change. The update
-- touches no status, so the inbox trigger (007, `update of status`) records no work.
update documents set segment_count = 0 where status = 'deleted' and segment_count <> 0;
