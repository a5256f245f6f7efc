#include "items.hpp"

#include <charconv>
#include <map>
#include <string>

#include "keel/http/json.hpp"

namespace web_app {
namespace {

namespace http = keel::http;
using nlohmann::json;

std::map<uint64_t, json> items;  // by id, in order
uint64_t next_id = 1;
uint32_t limit = 0;

// The item with its id, as the API shows it.
json shown(uint64_t id, const json& item) {
  json out = item;
  out["id"] = id;
  return out;
}

// An id from the path: decimal digits only, else no such item.
bool find(const http::Exchange& ex, std::map<uint64_t, json>::iterator& it) {
  const std::string_view text = ex.param("id");
  uint64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  it = items.find(id);
  return it != items.end();
}

void list(http::Exchange ex) {
  json all = json::array();
  for (const auto& [id, item] : items) all.push_back(shown(id, item));
  ex.respond(http::json_reply(http::status::ok, all));
}

void create(http::Exchange ex) {
  json item;
  if (auto e = http::parse_json_body(ex.request(), ex.body(), item); e != http::JsonError::none)
    return (void)ex.respond(http::json_error(http::status_of(e), http::to_string(e)));
  if (!item.is_object()) return (void)ex.respond(http::json_error(422, "an item is a JSON object"));
  if (items.size() >= limit)
    return (void)ex.respond(http::json_error(507, "the store is full"));  // RFC 4918 §11.5
  item.erase("id");                                                       // ours to give
  const uint64_t id = next_id++;
  auto reply = http::json_reply(http::status::created, shown(id, item));
  reply.head.set("Location", "/api/items/" + std::to_string(id));  // RFC 9110 §15.3.2
  items.emplace(id, std::move(item));
  ex.respond(std::move(reply));
}

void show(http::Exchange ex) {
  std::map<uint64_t, json>::iterator it;
  if (!find(ex, it))
    return (void)ex.respond(http::json_error(http::status::not_found, "no such item"));
  ex.respond(http::json_reply(http::status::ok, shown(it->first, it->second)));
}

void remove(http::Exchange ex) {
  std::map<uint64_t, json>::iterator it;
  if (!find(ex, it))
    return (void)ex.respond(http::json_error(http::status::not_found, "no such item"));
  items.erase(it);
  ex.respond(http::status::no_content);
}

}  // namespace

void add_item_routes(http::Server& server, uint32_t max_items) {
  limit = max_items;
  server.route(http::Method::get, "/api/items", list);
  server.route(http::Method::post, "/api/items", create);
  server.route(http::Method::get, "/api/items/:id", show);
  server.route(http::Method::delete_, "/api/items/:id", remove);
}

}  // namespace web_app
