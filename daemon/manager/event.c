/* SPDX-License-Identifier: MIT */
/* The event type table: names, MESSAGE_IDs and priorities in one place. The ids are fixed for
 * ever once released (units/storpulse.catalog documents each; tests grep the journal for them). */

#include <syslog.h>

#include "basic/string-table.h"
#include "manager/event.h"

static const struct {
        const char *name;
        const char *id;
        int priority;
} event_table[_MANAGER_EVENT_TYPE_MAX] = {
        [MANAGER_EVENT_VOLUME_APPEARED] = { "volume-appeared", "743d4bceef3e4a7ba74d5b3565679809",
                                            LOG_INFO },
        [MANAGER_EVENT_VOLUME_VANISHED] = { "volume-vanished", "57d7630e83fe4612aeb0810ba5305e29",
                                            LOG_NOTICE },
        [MANAGER_EVENT_DEGRADED] = { "degraded", "9def4268d12b4c2795aa6c09bd8882d9", LOG_WARNING },
        [MANAGER_EVENT_FAILED] = { "failed", "33074ed87af14c8aa9ce04debbe9b700", LOG_CRIT },
        [MANAGER_EVENT_RECOVERED] = { "recovered", "33e525d1f23d45e49978eb3c254cc3dd", LOG_NOTICE },
        [MANAGER_EVENT_MEMBER_FAILED] = { "member-failed", "d43c54c344c04928ae13e952f3edcf5c",
                                          LOG_ERR },
        [MANAGER_EVENT_MEMBER_REMOVED] = { "member-removed", "34227dfc50964d428c380d143e75cd4f",
                                           LOG_WARNING },
        [MANAGER_EVENT_MEMBER_ADDED] = { "member-added", "b26a69428955403c952a5cab6464b42a",
                                         LOG_NOTICE },
        [MANAGER_EVENT_SPARE_ACTIVE] = { "spare-active", "5517893019624aa7bf5579a912664feb",
                                         LOG_NOTICE },
        [MANAGER_EVENT_REPLACEMENT_STARTED] = { "replacement-started",
                                                "588e12c996c44c20905efd69b6b38020", LOG_NOTICE },
        [MANAGER_EVENT_REPLACEMENT_FINISHED] = { "replacement-finished",
                                                 "2f2d9cfa5b014983970da475406bf8e9", LOG_NOTICE },
        [MANAGER_EVENT_REBUILD_STARTED] = { "rebuild-started", "7c2f64d184c841cc95e76f42cb3716e6",
                                            LOG_NOTICE },
        [MANAGER_EVENT_REBUILD_PROGRESS] = { "rebuild-progress", "cedfefcf441541f49497905d9672817b",
                                             LOG_INFO },
        [MANAGER_EVENT_REBUILD_FINISHED] = { "rebuild-finished", "bd3f65f1291640868c919a27bb6f46ec",
                                             LOG_NOTICE },
        [MANAGER_EVENT_REBUILD_INTERRUPTED] = { "rebuild-interrupted",
                                                "5b8b6a529eaa45abbc195c2eed1ba137", LOG_WARNING },
        [MANAGER_EVENT_REBUILD_RESUMED] = { "rebuild-resumed", "0615b0f97e1b4c63ac8c9a9678a1bba2",
                                            LOG_NOTICE },
        [MANAGER_EVENT_REBUILD_DELAYED] = { "rebuild-delayed", "328a955b6dd44155a5b5ab2692845268",
                                            LOG_INFO },
        [MANAGER_EVENT_CHECK_FINISHED] = { "check-finished", "9852b821fe6a41018ebe9e6aab0be8c4",
                                           LOG_INFO },
        [MANAGER_EVENT_RESHAPE_STARTED] = { "reshape-started", "0539dd20c9b244f8ae4d1fc7d0fb28e5",
                                            LOG_NOTICE },
        [MANAGER_EVENT_RESHAPE_FINISHED] = { "reshape-finished", "aa0674e467c84ba488cb94d0c82000bc",
                                             LOG_NOTICE },
        [MANAGER_EVENT_PROBE_FINISHED] = { "probe-finished", "52d1c022e9de40c4b2f57f62ec4f0d4d",
                                           LOG_INFO },
        [MANAGER_EVENT_PROBE_ERROR] = { "probe-error", "cfabd58859614f6dabcfa29c350a94a1",
                                        LOG_ERR },
        [MANAGER_EVENT_PROBE_STALLED] = { "probe-stalled", "598e493a38f6414384b4384643133fb8",
                                          LOG_ERR },
        [MANAGER_EVENT_PROBE_SKIPPED] = { "probe-skipped", "c2114034c10d47bf946c29dd256e3da9",
                                          LOG_NOTICE },
        [MANAGER_EVENT_CONFIG_RELOADED] = { "config-reloaded", "2a58adfbb21545649b54af42ee3b50ff",
                                            LOG_INFO },
        [MANAGER_EVENT_CONFIG_REJECTED] = { "config-rejected", "8ddff679ffa64273a66cace5932fdf21",
                                            LOG_ERR },
        [MANAGER_EVENT_STARTED] = { "started", "e74a827ee83e45cbb596dae03e49d6c8", LOG_INFO },
        [MANAGER_EVENT_STOPPING] = { "stopping", "31b7d00d9fec4b268f01cd77a1ac9559", LOG_INFO },
        [MANAGER_EVENT_PERFORMANCE_DEGRADED] = { "performance-degraded",
                                                 "14413b037e3d46bdb9ae2ec1a3e4e1f0", LOG_WARNING },
        [MANAGER_EVENT_PERFORMANCE_RECOVERED] = { "performance-recovered",
                                                  "a59f21ef344345b0808b98547080e17a", LOG_NOTICE },
        [MANAGER_EVENT_MEMBER_SLOW] = { "member-slow", "6ae76361e7974e0e8c3a268eecfb89c3",
                                        LOG_WARNING },
        [MANAGER_EVENT_MEMBER_NORMAL] = { "member-normal", "20f2d34e62154426937eebd47281573d",
                                          LOG_NOTICE },
        [MANAGER_EVENT_MEMBER_FLAPPING] = { "member-flapping", "e61f6a6ddfa540aa96a8bbd719982e20",
                                            LOG_WARNING },
        [MANAGER_EVENT_REBUILD_SLOW] = { "rebuild-slow", "22ca44a823eb428bafd65c7fb9e15123",
                                         LOG_WARNING },
        [MANAGER_EVENT_BACKGROUND_REBUILD] = { "background-rebuild",
                                               "c94b2792166342928c6b57589bbc7d35", LOG_NOTICE },
        [MANAGER_EVENT_PROBLEM_BELOW] = { "problem-below", "b29ca939fbc845ff8f56c5f606b61840",
                                          LOG_WARNING },
        [MANAGER_EVENT_PROBLEM_BELOW_CLEARED] = { "problem-below-cleared",
                                                  "531821d1ad4f412981280f0a500e632d", LOG_NOTICE },
        [MANAGER_EVENT_NOT_ASSEMBLED] = { "not-assembled", "a23d99ec1b59410ca831f8a8b04e4d25",
                                          LOG_CRIT },
};

const char *manager_event_type_to_string(ManagerEventType t) {
        return t >= 0 && t < _MANAGER_EVENT_TYPE_MAX ? event_table[t].name : NULL;
}

ManagerEventType manager_event_type_from_string(const char *s) {
        const char *names[_MANAGER_EVENT_TYPE_MAX];

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                names[i] = event_table[i].name;
        return (ManagerEventType) string_table_lookup(names, ELEMENTSOF(names), s);
}

const char *manager_event_type_message_id(ManagerEventType t) {
        return t >= 0 && t < _MANAGER_EVENT_TYPE_MAX ? event_table[t].id : NULL;
}

int manager_event_type_priority(ManagerEventType t) {
        return t >= 0 && t < _MANAGER_EVENT_TYPE_MAX ? event_table[t].priority : LOG_INFO;
}
