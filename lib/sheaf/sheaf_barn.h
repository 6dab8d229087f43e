/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_BARN_H_
#define _SHEAF_BARN_H_

#include "sheaf_pvt.h"

/* Create the rings and hand each barn its initial empty sheaves. */
int sheaf_barn_init(struct sheaf_pool *sp, uint32_t first_sheaf);
void sheaf_barn_release(struct sheaf_pool *sp);

/*
 * Trade up to k empty sheaves for full ones: returns how many (0..k);
 * empty[0..ret) went to the barn, full[0..ret) came from it.
 */
unsigned int sheaf_barn_replace_empty(struct sheaf_pool *sp, uint32_t b,
	struct sheaf * const *empty, unsigned int k, struct sheaf **full);

/*
 * Trade up to k full sheaves for empty ones, within the barn's limit of
 * full sheaves: returns how many (0..k), as sheaf_barn_replace_empty().
 */
unsigned int sheaf_barn_replace_full(struct sheaf_pool *sp, uint32_t b,
	struct sheaf * const *full, unsigned int k, struct sheaf **empty);

struct sheaf *sheaf_barn_get_full(struct sheaf_pool *sp, uint32_t b);
struct sheaf *sheaf_barn_get_empty(struct sheaf_pool *sp, uint32_t b);
void sheaf_barn_put_full(struct sheaf_pool *sp, uint32_t b, struct sheaf *s);
void sheaf_barn_put_empty(struct sheaf_pool *sp, uint32_t b, struct sheaf *s);

/* Objects in all barns' full sheaves; racy, exact when quiet. */
uint32_t sheaf_barn_count(const struct sheaf_pool *sp);

#endif /* _SHEAF_BARN_H_ */
