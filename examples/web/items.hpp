// The REST resource of the appliance (the CETIC web server's role): JSON
// objects kept in memory, at most `max_items` of them.
//
//   GET    /api/items       200 [{"id": 1, ...}, ...]
//   POST   /api/items       201 {"id": n, ...} with Location; 422 if not an
//                           object, 415/400 if not JSON, 507 when full
//   GET    /api/items/:id   200 the item, 404
//   DELETE /api/items/:id   204, 404
#pragma once
#include <cstdint>

#include "keel/http/server.hpp"

namespace web_app {

void add_item_routes(keel::http::Server& server, uint32_t max_items);

}  // namespace web_app
