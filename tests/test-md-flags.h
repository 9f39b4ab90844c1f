/* SPDX-License-Identifier: MIT */
#pragma once

/* Shorthands for the member flag bits in the md and mdstat test tables (test-md.c, test-md-load.c,
 * test-mdstat.c, test-mdstat-captures.c): FLAG(IN_SYNC) is a bit of a member's state in
 * /sys/block/mdX/md/dev-NAME/state, MF(FAULTY) a /proc/mdstat member flag such as "(F)". */

#include "model/md.h"
#include "model/mdstat.h"

#define FLAG(x) MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_##x)
#define MF(x)   MDSTAT_MEMBER_FLAG(MDSTAT_MEMBER_##x)
