/* SPDX-License-Identifier: MIT */
/* The control socket (placeholder until the protocol lands). */

#include "manager/manager-internal.h"

int manager_control_setup(Manager *m) {
        return 0;
}

void manager_control_free(Manager *m) {
}
