--
-- Part of sql/parallel_build.sql, included once per access method (:am):
-- serial and parallel builds of several kinds of index compared page by
-- page, then differential queries over the parallel-built indexes.
--
SELECT pb_build('pb_k', :'am', '(k)');
SELECT pb_build('pb_tk', :'am', '(t, k)');
SELECT pb_build('pb_desc', :'am', '(k DESC NULLS FIRST, id)');
SELECT pb_build('pb_gk', :'am', '(g, k)');
SELECT pb_build('pb_ug', :'am', '((md5(t)::uuid), g)');
SELECT pb_build('pb_lower', :'am', '(lower(t))');
SELECT pb_build('pb_owner', :'am', '(pb_as_owner(k))');
SELECT pb_build('pb_part', :'am', '(k) WHERE g < 3');
SELECT am, entries FROM elastic_index_stats('pb_k_p');
SELECT am, entries FROM elastic_index_stats('pb_part_p');
DROP INDEX pb_k_s, pb_k_m, pb_tk_s, pb_tk_m, pb_desc_s, pb_desc_m, pb_gk_s, pb_gk_m,
	pb_ug_s, pb_ug_m,
	pb_lower_s, pb_lower_m, pb_owner_s, pb_owner_m, pb_part_s, pb_part_m;
SELECT pb_diff('SELECT id, k FROM pb WHERE k BETWEEN 10 AND 20');
SELECT pb_diff('SELECT id FROM pb WHERE k IS NULL');
SELECT pb_diff('SELECT t, k FROM pb WHERE t > ''a'' AND t < ''b''');
SELECT pb_diff('SELECT k, id FROM pb WHERE k > 90 OR k IS NULL ORDER BY k DESC NULLS FIRST, id');
SELECT pb_diff('SELECT lower(t) FROM pb WHERE lower(t) >= ''f''');
SELECT pb_diff('SELECT g, k, id FROM pb WHERE g = 4 AND k > 50');
SELECT pb_diff('SELECT t FROM pb WHERE md5(t)::uuid < ''40000000-0000-0000-0000-000000000000''');
SELECT pb_diff('SELECT id FROM pb WHERE k = 42 AND g < 3');
DROP INDEX pb_k_p, pb_tk_p, pb_desc_p, pb_gk_p, pb_ug_p, pb_lower_p, pb_owner_p,
	pb_part_p;
