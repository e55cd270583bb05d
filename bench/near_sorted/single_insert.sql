-- bench/near_sorted/single_insert.sql: one row per transaction, the rows
-- taken in arrival order (src.arrival) by every client from one sequence.
INSERT INTO t SELECT key FROM src WHERE arrival = (SELECT nextval('arrival_seq'));
