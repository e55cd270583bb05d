/* sql/install/elastic_index--0.2.0--0.3.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION elastic_index UPDATE TO '0.3.0'" to load this file. \quit

--------------------------------------------------------------------------
-- 0.3.0 adds operator classes, for both access methods, for the other
-- types btree has default classes for, and btree's pattern classes, and
-- normalize functions (support function 7) for all of them but enum_ops,
-- so that their keys can go in compact leaves.  Nothing else changes: no
-- page format, no WAL record.
--------------------------------------------------------------------------

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

-- On a distributed index osm_tree_buffer_stats reads the shards through
-- connections of the leader's own (src/inspect/shards.c), which a parallel
-- worker must not open.
ALTER FUNCTION osm_tree_buffer_stats(regclass) PARALLEL RESTRICTED;

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
