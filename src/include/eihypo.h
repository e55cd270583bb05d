/*-------------------------------------------------------------------------
 *
 * eihypo.h
 *	  Hypothetical indexes for EXPLAIN (src/hypo/).
 *
 *-------------------------------------------------------------------------
 */
#ifndef EIHYPO_H
#define EIHYPO_H

/* hypo/hypothetical.c */
extern void EIHypoInit(void);

#endif							/* EIHYPO_H */
