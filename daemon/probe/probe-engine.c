/* SPDX-License-Identifier: MIT */
/* The engine interface's common part: lifetime. The engines themselves live in
 * probe-engine-aio.c (libaio, real devices) and probe-engine-scripted.c (virtual time, faults). */

#include "probe/probe-engine.h"

ProbeEngine *probe_engine_free(ProbeEngine *e) {
        if (!e)
                return NULL;
        if (e->ops && e->ops->destroy)
                e->ops->destroy(e->userdata);
        free(e);
        return NULL;
}
