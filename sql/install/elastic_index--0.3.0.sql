/* sql/install/elastic_index--0.3.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION elastic_index" to load this file. \quit

--------------------------------------------------------------------------
-- Access method
--------------------------------------------------------------------------

CREATE FUNCTION elastic_btree_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD elastic_btree TYPE INDEX HANDLER elastic_btree_handler;

COMMENT ON ACCESS METHOD elastic_btree IS
'Lehman & Yao B+-tree index with its own WAL resource manager (needs shared_preload_libraries = ''elastic_index'')';

--------------------------------------------------------------------------
-- Operator families and classes
--
-- They mirror btree's, numbers included (PostgreSQL 18 checks an ordering
-- access method's support functions against btree's numbering): strategies
-- 1..5 are < <= = >= >, support function 1 is the 3-way comparison
-- function, 2 the sort support function and 4 the "equal image" function
-- (equal values are bitwise equal: what deduplication will need), where
-- btree has them.  3, 5 and 6 (btree's in_range, options and skip support) are
-- unused.  Cross-type operators live in the family only (ALTER OPERATOR
-- FAMILY), exactly as in btree.
--------------------------------------------------------------------------

-- Support function 7 of the operator classes: a value's binary-comparable
-- encoding (src/am/normalize.c).  Compact leaves compare keys only in this
-- form; operator classes without one (numeric, interval) keep standard
-- leaves.
CREATE FUNCTION elastic_btree_normalize(int2) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int2'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(int4) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(int8) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(float4) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_float4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(float8) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_float8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(date) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(timestamp) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(timestamptz) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(uuid) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_uuid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(bool) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bool'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(oid) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_oid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;


-- integer_ops: int2, int4, int8

CREATE OPERATOR FAMILY integer_ops USING elastic_btree;

CREATE OPERATOR CLASS int2_ops
DEFAULT FOR TYPE int2 USING elastic_btree FAMILY integer_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btint2cmp(int2, int2),
	FUNCTION 2 btint2sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(int2);

CREATE OPERATOR CLASS int4_ops
DEFAULT FOR TYPE int4 USING elastic_btree FAMILY integer_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btint4cmp(int4, int4),
	FUNCTION 2 btint4sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(int4);

CREATE OPERATOR CLASS int8_ops
DEFAULT FOR TYPE int8 USING elastic_btree FAMILY integer_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btint8cmp(int8, int8),
	FUNCTION 2 btint8sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(int8);

ALTER OPERATOR FAMILY integer_ops USING elastic_btree ADD
	-- int2 vs int4
	OPERATOR 1 < (int2, int4),
	OPERATOR 2 <= (int2, int4),
	OPERATOR 3 = (int2, int4),
	OPERATOR 4 >= (int2, int4),
	OPERATOR 5 > (int2, int4),
	FUNCTION 1 (int2, int4) btint24cmp(int2, int4),
	-- int2 vs int8
	OPERATOR 1 < (int2, int8),
	OPERATOR 2 <= (int2, int8),
	OPERATOR 3 = (int2, int8),
	OPERATOR 4 >= (int2, int8),
	OPERATOR 5 > (int2, int8),
	FUNCTION 1 (int2, int8) btint28cmp(int2, int8),
	-- int4 vs int2
	OPERATOR 1 < (int4, int2),
	OPERATOR 2 <= (int4, int2),
	OPERATOR 3 = (int4, int2),
	OPERATOR 4 >= (int4, int2),
	OPERATOR 5 > (int4, int2),
	FUNCTION 1 (int4, int2) btint42cmp(int4, int2),
	-- int4 vs int8
	OPERATOR 1 < (int4, int8),
	OPERATOR 2 <= (int4, int8),
	OPERATOR 3 = (int4, int8),
	OPERATOR 4 >= (int4, int8),
	OPERATOR 5 > (int4, int8),
	FUNCTION 1 (int4, int8) btint48cmp(int4, int8),
	-- int8 vs int2
	OPERATOR 1 < (int8, int2),
	OPERATOR 2 <= (int8, int2),
	OPERATOR 3 = (int8, int2),
	OPERATOR 4 >= (int8, int2),
	OPERATOR 5 > (int8, int2),
	FUNCTION 1 (int8, int2) btint82cmp(int8, int2),
	-- int8 vs int4
	OPERATOR 1 < (int8, int4),
	OPERATOR 2 <= (int8, int4),
	OPERATOR 3 = (int8, int4),
	OPERATOR 4 >= (int8, int4),
	OPERATOR 5 > (int8, int4),
	FUNCTION 1 (int8, int4) btint84cmp(int8, int4);

-- float_ops: float4, float8

CREATE OPERATOR FAMILY float_ops USING elastic_btree;

CREATE OPERATOR CLASS float4_ops
DEFAULT FOR TYPE float4 USING elastic_btree FAMILY float_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btfloat4cmp(float4, float4),
	FUNCTION 2 btfloat4sortsupport(internal),
	FUNCTION 7 elastic_btree_normalize(float4);

CREATE OPERATOR CLASS float8_ops
DEFAULT FOR TYPE float8 USING elastic_btree FAMILY float_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btfloat8cmp(float8, float8),
	FUNCTION 2 btfloat8sortsupport(internal),
	FUNCTION 7 elastic_btree_normalize(float8);

ALTER OPERATOR FAMILY float_ops USING elastic_btree ADD
	-- float4 vs float8
	OPERATOR 1 < (float4, float8),
	OPERATOR 2 <= (float4, float8),
	OPERATOR 3 = (float4, float8),
	OPERATOR 4 >= (float4, float8),
	OPERATOR 5 > (float4, float8),
	FUNCTION 1 (float4, float8) btfloat48cmp(float4, float8),
	-- float8 vs float4
	OPERATOR 1 < (float8, float4),
	OPERATOR 2 <= (float8, float4),
	OPERATOR 3 = (float8, float4),
	OPERATOR 4 >= (float8, float4),
	OPERATOR 5 > (float8, float4),
	FUNCTION 1 (float8, float4) btfloat84cmp(float8, float4);

-- datetime_ops: date, timestamp, timestamptz

CREATE OPERATOR FAMILY datetime_ops USING elastic_btree;

CREATE OPERATOR CLASS date_ops
DEFAULT FOR TYPE date USING elastic_btree FAMILY datetime_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 date_cmp(date, date),
	FUNCTION 2 date_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(date);

CREATE OPERATOR CLASS timestamp_ops
DEFAULT FOR TYPE timestamp USING elastic_btree FAMILY datetime_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 timestamp_cmp(timestamp, timestamp),
	FUNCTION 2 timestamp_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(timestamp);

CREATE OPERATOR CLASS timestamptz_ops
DEFAULT FOR TYPE timestamptz USING elastic_btree FAMILY datetime_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 timestamptz_cmp(timestamptz, timestamptz),
	FUNCTION 2 timestamp_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(timestamptz);

ALTER OPERATOR FAMILY datetime_ops USING elastic_btree ADD
	-- date vs timestamp
	OPERATOR 1 < (date, timestamp),
	OPERATOR 2 <= (date, timestamp),
	OPERATOR 3 = (date, timestamp),
	OPERATOR 4 >= (date, timestamp),
	OPERATOR 5 > (date, timestamp),
	FUNCTION 1 (date, timestamp) date_cmp_timestamp(date, timestamp),
	-- date vs timestamptz
	OPERATOR 1 < (date, timestamptz),
	OPERATOR 2 <= (date, timestamptz),
	OPERATOR 3 = (date, timestamptz),
	OPERATOR 4 >= (date, timestamptz),
	OPERATOR 5 > (date, timestamptz),
	FUNCTION 1 (date, timestamptz) date_cmp_timestamptz(date, timestamptz),
	-- timestamp vs date
	OPERATOR 1 < (timestamp, date),
	OPERATOR 2 <= (timestamp, date),
	OPERATOR 3 = (timestamp, date),
	OPERATOR 4 >= (timestamp, date),
	OPERATOR 5 > (timestamp, date),
	FUNCTION 1 (timestamp, date) timestamp_cmp_date(timestamp, date),
	-- timestamp vs timestamptz
	OPERATOR 1 < (timestamp, timestamptz),
	OPERATOR 2 <= (timestamp, timestamptz),
	OPERATOR 3 = (timestamp, timestamptz),
	OPERATOR 4 >= (timestamp, timestamptz),
	OPERATOR 5 > (timestamp, timestamptz),
	FUNCTION 1 (timestamp, timestamptz) timestamp_cmp_timestamptz(timestamp, timestamptz),
	-- timestamptz vs date
	OPERATOR 1 < (timestamptz, date),
	OPERATOR 2 <= (timestamptz, date),
	OPERATOR 3 = (timestamptz, date),
	OPERATOR 4 >= (timestamptz, date),
	OPERATOR 5 > (timestamptz, date),
	FUNCTION 1 (timestamptz, date) timestamptz_cmp_date(timestamptz, date),
	-- timestamptz vs timestamp
	OPERATOR 1 < (timestamptz, timestamp),
	OPERATOR 2 <= (timestamptz, timestamp),
	OPERATOR 3 = (timestamptz, timestamp),
	OPERATOR 4 >= (timestamptz, timestamp),
	OPERATOR 5 > (timestamptz, timestamp),
	FUNCTION 1 (timestamptz, timestamp) timestamptz_cmp_timestamp(timestamptz, timestamp);

-- numeric_ops

CREATE OPERATOR FAMILY numeric_ops USING elastic_btree;

CREATE OPERATOR CLASS numeric_ops
DEFAULT FOR TYPE numeric USING elastic_btree FAMILY numeric_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 numeric_cmp(numeric, numeric),
	FUNCTION 2 numeric_sortsupport(internal);

-- interval_ops (btree has no sort support function for interval)

CREATE OPERATOR FAMILY interval_ops USING elastic_btree;

CREATE OPERATOR CLASS interval_ops
DEFAULT FOR TYPE interval USING elastic_btree FAMILY interval_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 interval_cmp(interval, interval);

-- uuid_ops

CREATE OPERATOR FAMILY uuid_ops USING elastic_btree;

CREATE OPERATOR CLASS uuid_ops
DEFAULT FOR TYPE uuid USING elastic_btree FAMILY uuid_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 uuid_cmp(uuid, uuid),
	FUNCTION 2 uuid_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(uuid);

-- text_ops (varchar columns use it through binary coercion)

CREATE OPERATOR FAMILY text_ops USING elastic_btree;

CREATE OPERATOR CLASS text_ops
DEFAULT FOR TYPE text USING elastic_btree FAMILY text_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 bttextcmp(text, text),
	FUNCTION 2 bttextsortsupport(internal),
	FUNCTION 4 btvarstrequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(text);

-- bytea_ops

CREATE OPERATOR FAMILY bytea_ops USING elastic_btree;

CREATE OPERATOR CLASS bytea_ops
DEFAULT FOR TYPE bytea USING elastic_btree FAMILY bytea_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 byteacmp(bytea, bytea),
	FUNCTION 2 bytea_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(bytea);

-- bool_ops (btree has no sort support function for boolean)

CREATE OPERATOR FAMILY bool_ops USING elastic_btree;

CREATE OPERATOR CLASS bool_ops
DEFAULT FOR TYPE bool USING elastic_btree FAMILY bool_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btboolcmp(bool, bool),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(bool);

-- oid_ops

CREATE OPERATOR FAMILY oid_ops USING elastic_btree;

CREATE OPERATOR CLASS oid_ops
DEFAULT FOR TYPE oid USING elastic_btree FAMILY oid_ops AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 btoidcmp(oid, oid),
	FUNCTION 2 btoidsortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(oid);

-- Since 0.3.0: the other types btree has default classes for, and its
-- pattern classes.  All but enum_ops have a normalize function (an enum's
-- order is its pg_enum.enumsortorder, which ALTER TYPE ... ADD VALUE may
-- renumber: no stable encoding); the pattern classes' ones ignore the
-- collation, as the classes' comparison functions do.

CREATE FUNCTION elastic_btree_normalize(bpchar) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bpchar'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(name) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_name'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(time) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(timetz) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_timetz'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(inet) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_inet'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(macaddr) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_macaddr'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(macaddr8) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_macaddr8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize("char") RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_char'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(money) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_money'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(pg_lsn) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_pg_lsn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(bit) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bit'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize(varbit) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bit'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize_pattern(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_text_pattern'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION elastic_btree_normalize_pattern(bpchar) RETURNS bytea
	AS 'MODULE_PATHNAME', 'elastic_btree_norm_bpchar_pattern'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bpchar_ops: bpchar (char(n))

CREATE OPERATOR FAMILY bpchar_ops USING elastic_btree;

CREATE OPERATOR CLASS bpchar_ops
DEFAULT FOR TYPE bpchar USING elastic_btree FAMILY bpchar_ops AS
	OPERATOR 1 < (bpchar, bpchar),
	OPERATOR 2 <= (bpchar, bpchar),
	OPERATOR 3 = (bpchar, bpchar),
	OPERATOR 4 >= (bpchar, bpchar),
	OPERATOR 5 > (bpchar, bpchar),
	FUNCTION 1 bpcharcmp(bpchar, bpchar),
	FUNCTION 2 bpchar_sortsupport(internal),
	FUNCTION 4 btvarstrequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(bpchar);

-- name_ops: name, in the family text_ops as in btree, with the cross-type
-- members name vs text and text vs name

CREATE OPERATOR CLASS name_ops
DEFAULT FOR TYPE name USING elastic_btree FAMILY text_ops AS
	OPERATOR 1 < (name, name),
	OPERATOR 2 <= (name, name),
	OPERATOR 3 = (name, name),
	OPERATOR 4 >= (name, name),
	OPERATOR 5 > (name, name),
	FUNCTION 1 btnamecmp(name, name),
	FUNCTION 2 btnamesortsupport(internal),
	FUNCTION 4 btvarstrequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(name);

ALTER OPERATOR FAMILY text_ops USING elastic_btree ADD
	-- name vs text
	OPERATOR 1 < (name, text),
	OPERATOR 2 <= (name, text),
	OPERATOR 3 = (name, text),
	OPERATOR 4 >= (name, text),
	OPERATOR 5 > (name, text),
	FUNCTION 1 (name, text) btnametextcmp(name, text),
	-- text vs name
	OPERATOR 1 < (text, name),
	OPERATOR 2 <= (text, name),
	OPERATOR 3 = (text, name),
	OPERATOR 4 >= (text, name),
	OPERATOR 5 > (text, name),
	FUNCTION 1 (text, name) bttextnamecmp(text, name);

-- time_ops: time

CREATE OPERATOR FAMILY time_ops USING elastic_btree;

CREATE OPERATOR CLASS time_ops
DEFAULT FOR TYPE time USING elastic_btree FAMILY time_ops AS
	OPERATOR 1 < (time, time),
	OPERATOR 2 <= (time, time),
	OPERATOR 3 = (time, time),
	OPERATOR 4 >= (time, time),
	OPERATOR 5 > (time, time),
	FUNCTION 1 time_cmp(time, time),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(time);

-- timetz_ops: timetz

CREATE OPERATOR FAMILY timetz_ops USING elastic_btree;

CREATE OPERATOR CLASS timetz_ops
DEFAULT FOR TYPE timetz USING elastic_btree FAMILY timetz_ops AS
	OPERATOR 1 < (timetz, timetz),
	OPERATOR 2 <= (timetz, timetz),
	OPERATOR 3 = (timetz, timetz),
	OPERATOR 4 >= (timetz, timetz),
	OPERATOR 5 > (timetz, timetz),
	FUNCTION 1 timetz_cmp(timetz, timetz),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(timetz);

-- network_ops: inet, and cidr through binary coercion (cidr_ops is the
-- non-default alias btree has too)

CREATE OPERATOR FAMILY network_ops USING elastic_btree;

CREATE OPERATOR CLASS inet_ops
DEFAULT FOR TYPE inet USING elastic_btree FAMILY network_ops AS
	OPERATOR 1 < (inet, inet),
	OPERATOR 2 <= (inet, inet),
	OPERATOR 3 = (inet, inet),
	OPERATOR 4 >= (inet, inet),
	OPERATOR 5 > (inet, inet),
	FUNCTION 1 network_cmp(inet, inet),
	FUNCTION 2 network_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(inet);

CREATE OPERATOR CLASS cidr_ops
FOR TYPE inet USING elastic_btree FAMILY network_ops AS
	STORAGE inet;

-- macaddr_ops: macaddr

CREATE OPERATOR FAMILY macaddr_ops USING elastic_btree;

CREATE OPERATOR CLASS macaddr_ops
DEFAULT FOR TYPE macaddr USING elastic_btree FAMILY macaddr_ops AS
	OPERATOR 1 < (macaddr, macaddr),
	OPERATOR 2 <= (macaddr, macaddr),
	OPERATOR 3 = (macaddr, macaddr),
	OPERATOR 4 >= (macaddr, macaddr),
	OPERATOR 5 > (macaddr, macaddr),
	FUNCTION 1 macaddr_cmp(macaddr, macaddr),
	FUNCTION 2 macaddr_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(macaddr);

-- macaddr8_ops: macaddr8

CREATE OPERATOR FAMILY macaddr8_ops USING elastic_btree;

CREATE OPERATOR CLASS macaddr8_ops
DEFAULT FOR TYPE macaddr8 USING elastic_btree FAMILY macaddr8_ops AS
	OPERATOR 1 < (macaddr8, macaddr8),
	OPERATOR 2 <= (macaddr8, macaddr8),
	OPERATOR 3 = (macaddr8, macaddr8),
	OPERATOR 4 >= (macaddr8, macaddr8),
	OPERATOR 5 > (macaddr8, macaddr8),
	FUNCTION 1 macaddr8_cmp(macaddr8, macaddr8),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(macaddr8);

-- enum_ops: anyenum, every enum type

CREATE OPERATOR FAMILY enum_ops USING elastic_btree;

CREATE OPERATOR CLASS enum_ops
DEFAULT FOR TYPE anyenum USING elastic_btree FAMILY enum_ops AS
	OPERATOR 1 < (anyenum, anyenum),
	OPERATOR 2 <= (anyenum, anyenum),
	OPERATOR 3 = (anyenum, anyenum),
	OPERATOR 4 >= (anyenum, anyenum),
	OPERATOR 5 > (anyenum, anyenum),
	FUNCTION 1 enum_cmp(anyenum, anyenum),
	FUNCTION 4 btequalimage(oid);

-- char_ops: "char"

CREATE OPERATOR FAMILY char_ops USING elastic_btree;

CREATE OPERATOR CLASS char_ops
DEFAULT FOR TYPE "char" USING elastic_btree FAMILY char_ops AS
	OPERATOR 1 < ("char", "char"),
	OPERATOR 2 <= ("char", "char"),
	OPERATOR 3 = ("char", "char"),
	OPERATOR 4 >= ("char", "char"),
	OPERATOR 5 > ("char", "char"),
	FUNCTION 1 btcharcmp("char", "char"),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize("char");

-- money_ops: money

CREATE OPERATOR FAMILY money_ops USING elastic_btree;

CREATE OPERATOR CLASS money_ops
DEFAULT FOR TYPE money USING elastic_btree FAMILY money_ops AS
	OPERATOR 1 < (money, money),
	OPERATOR 2 <= (money, money),
	OPERATOR 3 = (money, money),
	OPERATOR 4 >= (money, money),
	OPERATOR 5 > (money, money),
	FUNCTION 1 cash_cmp(money, money),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(money);

-- pg_lsn_ops: pg_lsn

CREATE OPERATOR FAMILY pg_lsn_ops USING elastic_btree;

CREATE OPERATOR CLASS pg_lsn_ops
DEFAULT FOR TYPE pg_lsn USING elastic_btree FAMILY pg_lsn_ops AS
	OPERATOR 1 < (pg_lsn, pg_lsn),
	OPERATOR 2 <= (pg_lsn, pg_lsn),
	OPERATOR 3 = (pg_lsn, pg_lsn),
	OPERATOR 4 >= (pg_lsn, pg_lsn),
	OPERATOR 5 > (pg_lsn, pg_lsn),
	FUNCTION 1 pg_lsn_cmp(pg_lsn, pg_lsn),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(pg_lsn);

-- bit_ops: bit

CREATE OPERATOR FAMILY bit_ops USING elastic_btree;

CREATE OPERATOR CLASS bit_ops
DEFAULT FOR TYPE bit USING elastic_btree FAMILY bit_ops AS
	OPERATOR 1 < (bit, bit),
	OPERATOR 2 <= (bit, bit),
	OPERATOR 3 = (bit, bit),
	OPERATOR 4 >= (bit, bit),
	OPERATOR 5 > (bit, bit),
	FUNCTION 1 bitcmp(bit, bit),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(bit);

-- varbit_ops: varbit

CREATE OPERATOR FAMILY varbit_ops USING elastic_btree;

CREATE OPERATOR CLASS varbit_ops
DEFAULT FOR TYPE varbit USING elastic_btree FAMILY varbit_ops AS
	OPERATOR 1 < (varbit, varbit),
	OPERATOR 2 <= (varbit, varbit),
	OPERATOR 3 = (varbit, varbit),
	OPERATOR 4 >= (varbit, varbit),
	OPERATOR 5 > (varbit, varbit),
	FUNCTION 1 varbitcmp(varbit, varbit),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize(varbit);

-- text_pattern_ops: text and varchar compared byte by byte, whatever the
-- collation (non-default)

CREATE OPERATOR FAMILY text_pattern_ops USING elastic_btree;

CREATE OPERATOR CLASS text_pattern_ops
FOR TYPE text USING elastic_btree FAMILY text_pattern_ops AS
	OPERATOR 1 ~<~ (text, text),
	OPERATOR 2 ~<=~ (text, text),
	OPERATOR 3 = (text, text),
	OPERATOR 4 ~>=~ (text, text),
	OPERATOR 5 ~>~ (text, text),
	FUNCTION 1 bttext_pattern_cmp(text, text),
	FUNCTION 2 bttext_pattern_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize_pattern(text);

CREATE OPERATOR CLASS varchar_pattern_ops
FOR TYPE text USING elastic_btree FAMILY text_pattern_ops AS
	STORAGE text;

-- bpchar_pattern_ops: char(n) compared byte by byte (non-default)

CREATE OPERATOR FAMILY bpchar_pattern_ops USING elastic_btree;

CREATE OPERATOR CLASS bpchar_pattern_ops
FOR TYPE bpchar USING elastic_btree FAMILY bpchar_pattern_ops AS
	OPERATOR 1 ~<~ (bpchar, bpchar),
	OPERATOR 2 ~<=~ (bpchar, bpchar),
	OPERATOR 3 = (bpchar, bpchar),
	OPERATOR 4 ~>=~ (bpchar, bpchar),
	OPERATOR 5 ~>~ (bpchar, bpchar),
	FUNCTION 1 btbpchar_pattern_cmp(bpchar, bpchar),
	FUNCTION 2 btbpchar_pattern_sortsupport(internal),
	FUNCTION 4 btequalimage(oid),
	FUNCTION 7 elastic_btree_normalize_pattern(bpchar);

--------------------------------------------------------------------------
-- osm_tree: the same tree, tuned for sorted and near-sorted ingestion
-- (src/am/osm_tree.c, src/core/batch.c)
--------------------------------------------------------------------------

CREATE FUNCTION osm_tree_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD osm_tree TYPE INDEX HANDLER osm_tree_handler;

COMMENT ON ACCESS METHOD osm_tree IS
'B+-tree index for sorted and near-sorted ingestion: a transaction''s entries are applied sorted, leaf by leaf, with bulk appends at the right edge (needs shared_preload_libraries = ''elastic_index'')';

-- osm_tree gets every operator family and class above, with the same
-- members: the list of supported types is kept in one place.  A member
-- whose operand types are both the input type of a class of its family
-- belongs to that class; the others (cross-type) to the family alone.  A
-- second class of the same input type in a family (cidr_ops,
-- varchar_pattern_ops) shares the first one's members.  Families, classes
-- and family members osm_tree has already are left alone, so that an
-- update script adds just the new ones with this same block.
DO $osm$
DECLARE
	src_am oid := (SELECT oid FROM pg_am WHERE amname = 'elastic_btree');
	osm_am oid := (SELECT oid FROM pg_am WHERE amname = 'osm_tree');
	fam record;
	cls record;
	osm_fam oid;
	members text;
	done_types oid[];
BEGIN
	FOR fam IN
		SELECT f.oid, f.opfname, f.opfnamespace FROM pg_opfamily f
		WHERE f.opfmethod = src_am ORDER BY f.opfname
	LOOP
		SELECT o.oid INTO osm_fam FROM pg_opfamily o
		WHERE o.opfmethod = osm_am AND o.opfname = fam.opfname
		  AND o.opfnamespace = fam.opfnamespace;
		IF osm_fam IS NULL THEN
			EXECUTE format('CREATE OPERATOR FAMILY %I.%I USING osm_tree',
						   '@extschema@', fam.opfname);
			SELECT o.oid INTO osm_fam FROM pg_opfamily o
			WHERE o.opfmethod = osm_am AND o.opfname = fam.opfname
			  AND o.opfnamespace = fam.opfnamespace;
		END IF;
		SELECT coalesce(array_agg(c.opcintype), '{}') INTO done_types
		FROM pg_opclass c WHERE c.opcfamily = osm_fam;

		FOR cls IN
			SELECT c.opcname, c.opcintype, c.opcdefault FROM pg_opclass c
			WHERE c.opcfamily = fam.oid
			  AND NOT EXISTS (SELECT 1 FROM pg_opclass o
							  WHERE o.opcfamily = osm_fam
								AND o.opcname = c.opcname)
			ORDER BY c.opcdefault DESC, c.opcname
		LOOP
			IF cls.opcintype = ANY (done_types) THEN
				EXECUTE format('CREATE OPERATOR CLASS %I.%I %s FOR TYPE %s USING osm_tree FAMILY %I.%I AS STORAGE %s',
							   '@extschema@', cls.opcname,
							   CASE WHEN cls.opcdefault THEN 'DEFAULT' ELSE '' END,
							   format_type(cls.opcintype, NULL),
							   '@extschema@', fam.opfname,
							   format_type(cls.opcintype, NULL));
				CONTINUE;
			END IF;
			done_types := done_types || cls.opcintype;
			SELECT string_agg(m, ', ' ORDER BY kind, num) INTO members FROM (
				SELECT 1 AS kind, o.amopstrategy AS num,
					   format('OPERATOR %s %s (%s, %s)', o.amopstrategy,
							  op.oprname, format_type(o.amoplefttype, NULL),
							  format_type(o.amoprighttype, NULL)) AS m
				FROM pg_amop o JOIN pg_operator op ON op.oid = o.amopopr
				WHERE o.amopfamily = fam.oid
				  AND o.amoplefttype = cls.opcintype
				  AND o.amoprighttype = cls.opcintype
				UNION ALL
				SELECT 2, p.amprocnum,
					   format('FUNCTION %s (%s, %s) %s', p.amprocnum,
							  format_type(p.amproclefttype, NULL),
							  format_type(p.amprocrighttype, NULL),
							  p.amproc::regprocedure)
				FROM pg_amproc p
				WHERE p.amprocfamily = fam.oid
				  AND p.amproclefttype = cls.opcintype
				  AND p.amprocrighttype = cls.opcintype) AS mm;
			EXECUTE format('CREATE OPERATOR CLASS %I.%I %s FOR TYPE %s USING osm_tree FAMILY %I.%I AS %s',
						   '@extschema@', cls.opcname,
						   CASE WHEN cls.opcdefault THEN 'DEFAULT' ELSE '' END,
						   format_type(cls.opcintype, NULL),
						   '@extschema@', fam.opfname, members);
		END LOOP;

		SELECT string_agg(m, ', ' ORDER BY kind, lt, rt, num) INTO members FROM (
			SELECT 1 AS kind, o.amoplefttype AS lt, o.amoprighttype AS rt,
				   o.amopstrategy AS num,
				   format('OPERATOR %s %s (%s, %s)', o.amopstrategy,
						  op.oprname, format_type(o.amoplefttype, NULL),
						  format_type(o.amoprighttype, NULL)) AS m
			FROM pg_amop o JOIN pg_operator op ON op.oid = o.amopopr
			WHERE o.amopfamily = fam.oid
			  AND NOT EXISTS (SELECT 1 FROM pg_opclass c
							  WHERE c.opcfamily = fam.oid
								AND c.opcintype = o.amoplefttype
								AND c.opcintype = o.amoprighttype)
			  AND NOT EXISTS (SELECT 1 FROM pg_amop x
							  WHERE x.amopfamily = osm_fam
								AND x.amoplefttype = o.amoplefttype
								AND x.amoprighttype = o.amoprighttype
								AND x.amopstrategy = o.amopstrategy)
			UNION ALL
			SELECT 2, p.amproclefttype, p.amprocrighttype, p.amprocnum,
				   format('FUNCTION %s (%s, %s) %s', p.amprocnum,
						  format_type(p.amproclefttype, NULL),
						  format_type(p.amprocrighttype, NULL),
						  p.amproc::regprocedure)
			FROM pg_amproc p
			WHERE p.amprocfamily = fam.oid
			  AND NOT EXISTS (SELECT 1 FROM pg_opclass c
							  WHERE c.opcfamily = fam.oid
								AND c.opcintype = p.amproclefttype
								AND c.opcintype = p.amprocrighttype)
			  AND NOT EXISTS (SELECT 1 FROM pg_amproc x
							  WHERE x.amprocfamily = osm_fam
								AND x.amproclefttype = p.amproclefttype
								AND x.amprocrighttype = p.amprocrighttype
								AND x.amprocnum = p.amprocnum)) AS mm;
		IF members IS NOT NULL THEN
			EXECUTE format('ALTER OPERATOR FAMILY %I.%I USING osm_tree ADD %s',
						   '@extschema@', fam.opfname, members);
		END IF;
	END LOOP;
END
$osm$;

--------------------------------------------------------------------------
-- Inspection functions
--------------------------------------------------------------------------

CREATE FUNCTION elastic_index_stats(index regclass,
	OUT am text,
	OUT format_version int4,
	OUT height int4,
	OUT root_block int8,
	OUT total_pages int8,
	OUT meta_pages int8,
	OUT inner_pages int8,
	OUT leaf_pages int8,
	OUT entries int8,
	OUT dead_entries int8,
	OUT inner_entries int8,
	OUT free_bytes int8,
	OUT leaf_fill float8,
	OUT avg_entry_bytes float8,
	OUT half_dead_pages int8,
	OUT deleted_pages int8,
	OUT recyclable_pages int8,
	OUT free_pages int8,
	OUT compact_leaf_pages int8,
	OUT elastic_state text,
	OUT size_bound_pages int8,
	OUT buffer_pages int8,
	OUT buffer_entries int8,
	OUT buffer_sorted_entries int8,
	OUT buffer_unsorted_entries int8,
	OUT buffer_fill float8,
	OUT buffer_flushes int8,
	OUT bulk_appended_entries int8,
	OUT top_inserted_entries int8)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_stats(regclass) IS
'page and entry statistics of an elastic_index index';

CREATE FUNCTION elastic_index_check(index regclass,
	heapallindexed bool DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_check(regclass, bool) IS
'verify the structure of an elastic_index index and, optionally, that every heap tuple is indexed';

-- Like amcheck: only superusers, or roles they grant it to, may run checks.
REVOKE EXECUTE ON FUNCTION elastic_index_check(regclass, bool) FROM PUBLIC;

-- The normalized key (key columns, then heap TID) an index gives an entry;
-- NULL tid: the search key without the TID.  Not STRICT: NULL values are
-- part of keys.
CREATE FUNCTION elastic_index_normalized_key(index regclass, tid tid,
	VARIADIC "any")
RETURNS bytea
AS 'MODULE_PATHNAME'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION elastic_index_normalized_key(regclass, tid, "any") IS
'the binary-comparable normalized key of an entry of an elastic_btree index';

-- What compact leaves would make of an index (nothing changes); with
-- verify, also read every key from the heap and search a compact copy of
-- every leaf for every entry.
CREATE FUNCTION elastic_btree_compact_preview(index regclass,
	verify bool DEFAULT false,
	OUT leaf_pages int8,
	OUT entries int8,
	OUT standard_capacity float8,
	OUT compact_capacity float8,
	OUT capacity_ratio float8,
	OUT compact_leaf_pages int8,
	OUT key_bytes int4,
	OUT dead_entries int8,
	OUT verified_entries int8,
	OUT heap_key_reads int8)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_btree_compact_preview(regclass, bool) IS
'leaf capacities of an elastic_btree index in standard and compact form, computed by converting copies of its leaves';

--------------------------------------------------------------------------
-- Elasticity on demand (src/elastic/policy.c)
--------------------------------------------------------------------------

-- Convert up to "leaves" standard leaves (all if NULL) to compact leaves and
-- keep converting full leaves instead of splitting them (state SHRINKING).
CREATE FUNCTION elastic_btree_shrink(index regclass, leaves int8 DEFAULT NULL)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION elastic_btree_shrink(regclass, int8) IS
'convert standard leaves of an elastic_btree index to compact leaves (all, or the first "leaves" of them) and make full leaves compact instead of splitting them';

-- Convert compact leaves back to standard leaves: all (state NORMAL), or
-- the first "leaves" of them, hot ones first.
CREATE FUNCTION elastic_btree_expand(index regclass, leaves int8 DEFAULT NULL)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION elastic_btree_expand(regclass, int8) IS
'convert compact leaves of an elastic_btree index back to standard leaves (all, or the first "leaves" of them, those read since the last VACUUM first), reading their keys from the table';

--------------------------------------------------------------------------
-- Near-sortedness (src/inspect/sortedness.c, src/lib/nearsort.c)
--------------------------------------------------------------------------

-- The keys 1..n in a K-L near-sorted arrival order: k_percent of them moved
-- by up to l_percent of n positions; deterministic for a seed.
CREATE FUNCTION elastic_index_near_sorted(n int8, k_percent float8,
	l_percent float8, seed int8 DEFAULT 1,
	OUT pos int8, OUT key int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION elastic_index_near_sorted(int8, float8, float8, int8) IS
'the keys 1..n in a deterministic K-L near-sorted order (k_percent of them out of place by up to l_percent of n)';

-- K and L of a column in the table's physical order, with advice.
CREATE FUNCTION elastic_index_sortedness(tbl regclass, col name,
	sample_rows int4 DEFAULT 30000,
	OUT rows_sampled int8, OUT k_percent float8, OUT l_percent float8,
	OUT advice text)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_sortedness(regclass, name, int4) IS
'how sorted a column is in its table''s physical order (K: percent of rows out of order, L: largest displacement in percent), and which index kind that favours';

--------------------------------------------------------------------------
-- osm_tree's insert buffer (src/osm/buffer.c)
--------------------------------------------------------------------------

CREATE FUNCTION osm_tree_flush(index regclass)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION osm_tree_flush(regclass) IS
'move every entry of an osm_tree index''s insert buffer into its tree now; returns how many entries moved';

CREATE FUNCTION osm_tree_buffer_stats(index regclass,
	OUT pages int8,
	OUT entries int8,
	OUT closed_pages int8,
	OUT buffer_size int4,
	OUT fill float8,
	OUT flushes int8,
	OUT sorted_pages int8,
	OUT sorted_entries int8,
	OUT unsorted_entries int8,
	OUT filter_keys int8,
	OUT filter_bytes int4)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION osm_tree_buffer_stats(regclass) IS
'the insert buffer of an osm_tree index: pages, entries, pages closed to new entries, buffer_size, pages / buffer_size, flush steps so far, pages whose entries are all sorted, entries in the pages'' sorted and unsorted sections, keys in the section filter since its last rebuild and its size (NULL: no section filter yet)';

--------------------------------------------------------------------------
-- Activity counters (src/inspect/activity.c)
--
-- Kept in shared memory since the last server start; the columns of
-- elastic_index_activity() must match EI_STAT_COUNTERS in eistats.h.
--------------------------------------------------------------------------

CREATE FUNCTION elastic_index_activity(
	OUT indexrelid oid,
	OUT leaf_splits int8,
	OUT inner_splits int8,
	OUT root_splits int8,
	OUT fastpath_inserts int8,
	OUT descents int8,
	OUT dead_entries_removed_on_insert int8,
	OUT dead_entries_removed_by_vacuum int8,
	OUT pages_deleted int8,
	OUT pages_recycled int8,
	OUT pages_extended int8,
	OUT leaves_made_compact int8,
	OUT leaves_made_standard int8,
	OUT compact_splits int8,
	OUT compact_inserts int8,
	OUT heap_key_reads int8,
	OUT batches_applied int8,
	OUT batched_entries int8,
	OUT bulk_appended_entries int8,
	OUT buffer_inserts int8,
	OUT buffer_flushes int8,
	OUT buffer_flushed_entries int8,
	OUT buffer_foreground_flushes int8,
	OUT buffer_pages_read int8,
	OUT buffer_pages_skipped int8,
	OUT buffer_pages_sorted int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION elastic_index_activity() IS
'activity counters of the elastic_index indexes of the current database that had events since the server started or the counters were reset';

CREATE FUNCTION elastic_index_activity_info(
	OUT max_indexes int4,
	OUT tracked_indexes int8,
	OUT overflowed int8,
	OUT stats_reset timestamptz)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION elastic_index_activity_info() IS
'size and use of the activity counter table: entries in all databases, events lost because it was full, time of the last full reset';

CREATE FUNCTION elastic_index_activity_reset(index regclass DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION elastic_index_activity_reset(regclass) IS
'reset the activity counters of one index, or (NULL) of every index of the current database and the overflow count';

-- Like pg_stat_reset_single_table_counters: superusers only, unless granted.
REVOKE EXECUTE ON FUNCTION elastic_index_activity_reset(regclass) FROM PUBLIC;

-- One row per elastic_btree index of the current database, like
-- pg_stat_user_indexes; zeros for an index without events.
CREATE VIEW elastic_index_stat_activity AS
SELECT n.nspname AS schemaname,
	   t.relname AS relname,
	   c.relname AS indexrelname,
	   c.oid AS indexrelid,
	   coalesce(a.leaf_splits, 0) AS leaf_splits,
	   coalesce(a.inner_splits, 0) AS inner_splits,
	   coalesce(a.root_splits, 0) AS root_splits,
	   coalesce(a.fastpath_inserts, 0) AS fastpath_inserts,
	   coalesce(a.descents, 0) AS descents,
	   coalesce(a.dead_entries_removed_on_insert, 0) AS dead_entries_removed_on_insert,
	   coalesce(a.dead_entries_removed_by_vacuum, 0) AS dead_entries_removed_by_vacuum,
	   coalesce(a.pages_deleted, 0) AS pages_deleted,
	   coalesce(a.pages_recycled, 0) AS pages_recycled,
	   coalesce(a.pages_extended, 0) AS pages_extended,
	   coalesce(a.leaves_made_compact, 0) AS leaves_made_compact,
	   coalesce(a.leaves_made_standard, 0) AS leaves_made_standard,
	   coalesce(a.compact_splits, 0) AS compact_splits,
	   coalesce(a.compact_inserts, 0) AS compact_inserts,
	   coalesce(a.heap_key_reads, 0) AS heap_key_reads,
	   coalesce(a.batches_applied, 0) AS batches_applied,
	   coalesce(a.batched_entries, 0) AS batched_entries,
	   coalesce(a.bulk_appended_entries, 0) AS bulk_appended_entries,
	   coalesce(a.buffer_inserts, 0) AS buffer_inserts,
	   coalesce(a.buffer_flushes, 0) AS buffer_flushes,
	   coalesce(a.buffer_flushed_entries, 0) AS buffer_flushed_entries,
	   coalesce(a.buffer_foreground_flushes, 0) AS buffer_foreground_flushes,
	   coalesce(a.buffer_pages_read, 0) AS buffer_pages_read,
	   coalesce(a.buffer_pages_skipped, 0) AS buffer_pages_skipped,
	   coalesce(a.buffer_pages_sorted, 0) AS buffer_pages_sorted
FROM pg_class c
	 JOIN pg_am am ON am.oid = c.relam
	 JOIN pg_index i ON i.indexrelid = c.oid
	 JOIN pg_class t ON t.oid = i.indrelid
	 LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
	 LEFT JOIN elastic_index_activity() a ON a.indexrelid = c.oid
WHERE c.relkind = 'i' AND am.amname IN ('elastic_btree', 'osm_tree');

COMMENT ON VIEW elastic_index_stat_activity IS
'activity counters of every elastic_btree and osm_tree index of the current database, since the server started or the counters were reset';

-- Like pg_stat_user_indexes: readable by everyone.
GRANT SELECT ON elastic_index_stat_activity TO PUBLIC;

-- Hypothetical indexes (src/hypo)
--
-- elastic_btree and osm_tree indexes that only a plain EXPLAIN (without
-- ANALYZE) sees, next to HypoPG's; kept in the session's memory.

CREATE FUNCTION elastic_index_hypothetical_create(definition text,
	OUT indexrelid oid, OUT indexname text)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_hypothetical_create(text) IS
'make a hypothetical elastic_btree or osm_tree index from a CREATE INDEX statement, for this session''s EXPLAIN';

CREATE FUNCTION elastic_index_hypothetical_list(
	OUT indexrelid oid, OUT indexname text, OUT relid regclass,
	OUT amname text, OUT estimated_pages int8, OUT estimated_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_hypothetical_list() IS
'this session''s hypothetical elastic_index indexes, with their estimated size';

CREATE FUNCTION elastic_index_hypothetical_estimate(indexrelid oid,
	OUT entries int8, OUT total_pages int8, OUT estimated_bytes int8,
	OUT inner_pages int8, OUT standard_leaves int8, OUT compact_leaves int8,
	OUT tree_height int4, OUT size_bound_pages int8)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_hypothetical_estimate(oid) IS
'size estimate of a hypothetical index: entries, pages, leaves of each kind, height, size bound';

CREATE FUNCTION elastic_index_hypothetical_drop(indexrelid oid)
RETURNS bool
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_hypothetical_drop(oid) IS
'forget one hypothetical index; false if there was none with that OID';

CREATE FUNCTION elastic_index_hypothetical_reset()
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION elastic_index_hypothetical_reset() IS
'forget every hypothetical index of this session';

-- On a Citus worker: one call of an index function on a shard index, as the
-- coordinator sends it (src/inspect/shards.c), run in a subtransaction; its
-- error is returned, not raised, so that the coordinator can raise it with
-- its SQLSTATE, detail and hint.  Runs the call as the calling user.
CREATE FUNCTION elastic_index_shard_call(call text,
	OUT sqlstate text,
	OUT message text,
	OUT detail text,
	OUT hint text,
	OUT result text)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION elastic_index_shard_call(text) IS
'internal: runs one call of an elastic_index function on a shard index for a Citus coordinator and returns its result or its error';
