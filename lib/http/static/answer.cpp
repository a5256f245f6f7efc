// The answer to GET or HEAD of a static file: the representation (a gzip
// or brotli variant when accepted), the preconditions, then the range (RFC
// 9110 §13.2.2's order).
#include <string>

#include "keel/http/response_writer.hpp"
#include "keel/http/static_files.hpp"
#include "static/rules.hpp"

namespace keel::http {

using namespace static_detail;

StaticReply answer_static(const StaticFile& file, const Request& request) {
  StaticReply reply;
  Response& h = reply.head;
  const bool has_variant = !file.gzip.empty() || !file.br.empty();
  const Coding coding =
      has_variant ? choose_coding(request, !file.gzip.empty(), !file.br.empty()) : Coding::identity;
  const std::span<const uint8_t> content = coding == Coding::gzip ? file.gzip
                                           : coding == Coding::br ? file.br
                                                                  : file.content;
  const std::string_view etag = coding == Coding::gzip ? file.gzip_etag
                                : coding == Coding::br ? file.br_etag
                                                       : file.etag;
  const Validators v{etag, file.modified};
  const std::string last_modified = format_http_date(file.modified);

  // RFC 9110 §12.5.5: every response of a file that has a variant says
  // the choice depended on Accept-Encoding (a cache must not mix them up).
  if (has_variant) h.set("Vary", "Accept-Encoding");

  switch (evaluate_preconditions(request, v)) {
    case Precondition::failed:
      h.status = status::precondition_failed;
      h.content_length = 0;
      return reply;
    case Precondition::not_modified:
      // §15.4.5: the fields a 200 would have had that describe the cache
      // entry (ETag, Vary); Last-Modified as nginx does. No length.
      h.status = status::not_modified;
      h.set("ETag", v.etag);
      h.set("Last-Modified", last_modified);
      return reply;
    case Precondition::proceed:
      break;
  }

  h.set("Content-Type", content_type_for(file.path));
  if (coding == Coding::gzip) h.set("Content-Encoding", "gzip");
  if (coding == Coding::br) h.set("Content-Encoding", "br");
  h.set("Last-Modified", last_modified);
  h.set("ETag", v.etag);
  h.set("Accept-Ranges", "bytes");
  reply.content = content;

  // §14.2: Range is defined for GET only (HEAD ignores it), and If-Range
  // false means the whole representation.
  const std::string* range = request.field("Range");
  if (range != nullptr && request.method == Method::get && if_range_holds(request, v)) {
    const RangeRequest r = evaluate_range(*range, content.size());
    const std::string length = std::to_string(content.size());
    if (r.verdict == RangeVerdict::unsatisfiable) {
      // §15.5.17: "bytes */length", and nothing that describes content.
      Response refusal;
      refusal.status = status::range_not_satisfiable;
      if (has_variant) refusal.set("Vary", "Accept-Encoding");
      refusal.set("Content-Range", "bytes */" + length);
      refusal.content_length = 0;
      reply.head = std::move(refusal);
      reply.content = {};
      return reply;
    } else if (r.verdict == RangeVerdict::single) {
      h.status = status::partial_content;
      h.set("Content-Range",
            "bytes " + std::to_string(r.first) + "-" + std::to_string(r.last) + "/" + length);
      reply.content = content.subspan(r.first, r.last - r.first + 1);
    }
  }
  h.content_length = reply.content.size();
  return reply;
}

}  // namespace keel::http
