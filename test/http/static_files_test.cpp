// Static files from a tree embedded at build time (test/http/static_site,
// keel_static_files_sources in test/http/CMakeLists.txt): the table the
// generator wrote, lookup, content types, and answer_static's responses.
#include "keel/http/static_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "keel/crypto/hmac_sha256.hpp"
#include "keel/http/response_writer.hpp"
#include "request_support.hpp"

namespace http = keel::http;

const http::StaticTree& test_site_files();  // generated

namespace {

std::string source_file(const std::string& rel) {
  std::ifstream in(std::string(KEEL_TEST_SITE) + "/" + rel, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Debian's gzip and brotli, the programs that made the variants,
// decompress them.
std::string decompress(const std::string& program, std::span<const uint8_t> in) {
  // One name per program and process: ctest runs the tests in parallel.
  const std::string path =
      ::testing::TempDir() + "static_variant_" + program + "_" + std::to_string(getpid());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
  FILE* p = popen((program + " -d -c " + path).c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; p != nullptr && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (p != nullptr) EXPECT_EQ(pclose(p), 0);
  std::remove(path.c_str());
  return out;
}

http::Request get(std::vector<std::pair<std::string, std::string>> fields = {},
                  http::Method method = http::Method::get) {
  return http::test::request_with(std::move(fields), method);
}

std::string field(const http::Response& r, std::string_view name) {
  for (const http::Field& f : r.fields)
    if (f.name == name) return f.value;
  return "(none)";
}

const http::StaticFile& file(std::string_view path) {
  const http::StaticFile* f = test_site_files().find(path);
  EXPECT_NE(f, nullptr) << path;
  static const http::StaticFile none;
  return f != nullptr ? *f : none;
}

}  // namespace

TEST(StaticTree, EveryFileOfTheFolderWithItsBytesAndTime) {
  const http::StaticTree& tree = test_site_files();
  std::vector<std::string> paths;
  for (const http::StaticFile& f : tree.files) paths.emplace_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"data.bin", "docs/index.html", "empty.txt",
                                             "index.html", "pre/app.js", "pre/app.js.br",
                                             "pre/app.js.gz", "style.css"}));
  for (const http::StaticFile& f : tree.files) {
    const std::string rel(f.path);
    EXPECT_EQ(text(f.content), source_file(rel)) << rel;
    struct stat st {};
    ASSERT_EQ(stat((std::string(KEEL_TEST_SITE) + "/" + rel).c_str(), &st), 0);
    EXPECT_EQ(f.modified, int64_t(st.st_mtime)) << rel;  // Last-Modified is the file's
    // Strong ETag: a quoted hash of the bytes.
    const auto md = keel::crypto::sha256(f.content);
    char hex[33];
    for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", md[i]);
    EXPECT_EQ(f.etag, "\"" + std::string(hex) + "\"") << rel;
  }
}

TEST(StaticTree, GzipVariantsMadeOrTaken) {
  // GZIP: style.css compressed at build time (gzip -9 -n), smaller.
  const http::StaticFile& css = file("style.css");
  ASSERT_FALSE(css.gzip.empty());
  EXPECT_LT(css.gzip.size(), css.content.size());
  EXPECT_EQ(decompress("gzip", css.gzip), text(css.content));
  EXPECT_NE(css.gzip_etag, css.etag);
  // A FILE.gz in the folder is FILE's variant as it is (and a file itself).
  EXPECT_EQ(text(file("pre/app.js").gzip), source_file("pre/app.js.gz"));
  EXPECT_TRUE(file("pre/app.js.gz").gzip.empty());
  // Not smaller (256 distinct bytes) or empty: no variant.
  EXPECT_TRUE(file("data.bin").gzip.empty());
  EXPECT_TRUE(file("empty.txt").gzip.empty());
}

TEST(StaticTree, BrotliVariantsMadeOrTaken) {
  // BROTLI: style.css compressed at build time (brotli -q 11), smaller.
  const http::StaticFile& css = file("style.css");
  ASSERT_FALSE(css.br.empty());
  EXPECT_LT(css.br.size(), css.content.size());
  EXPECT_EQ(decompress("brotli", css.br), text(css.content));
  EXPECT_NE(css.br_etag, css.etag);
  EXPECT_NE(css.br_etag, css.gzip_etag);
  // A FILE.br in the folder is FILE's variant as it is; variants get none.
  EXPECT_EQ(text(file("pre/app.js").br), source_file("pre/app.js.br"));
  EXPECT_TRUE(file("pre/app.js.br").br.empty());
  EXPECT_TRUE(file("pre/app.js.br").gzip.empty());
  EXPECT_TRUE(file("pre/app.js.gz").br.empty());
  EXPECT_TRUE(file("empty.txt").br.empty());
  // Bytes 0..255, which gzip cannot shrink, brotli can (213 bytes): its
  // context modelling, so the file has a brotli variant and no gzip one.
  const http::StaticFile& bin = file("data.bin");
  ASSERT_FALSE(bin.br.empty());
  EXPECT_LT(bin.br.size(), bin.content.size());
  EXPECT_EQ(decompress("brotli", bin.br), text(bin.content));
}

TEST(StaticTree, Lookup) {
  const http::StaticTree& tree = test_site_files();
  auto kind = [&](std::string_view p) { return http::lookup_static(tree, p).kind; };
  EXPECT_EQ(http::lookup_static(tree, "").file, tree.find("index.html"));
  EXPECT_EQ(http::lookup_static(tree, "docs/").file, tree.find("docs/index.html"));
  EXPECT_EQ(kind("docs"), http::StaticLookup::directory);
  EXPECT_EQ(kind("style.css"), http::StaticLookup::file);
  EXPECT_EQ(kind("missing.css"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("pre/"), http::StaticLookup::not_found);  // no index.html
  EXPECT_EQ(kind("pre"), http::StaticLookup::directory);   // a directory all the same
  EXPECT_EQ(kind("pr"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("docs/index"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("style.css/"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("docs//index.html"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("../static_site/index.html"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("/index.html"), http::StaticLookup::not_found);
  EXPECT_EQ(kind("INDEX.HTML"), http::StaticLookup::not_found);
}

TEST(StaticTree, ContentTypes) {
  EXPECT_EQ(http::content_type_for("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(http::content_type_for("a/b/site.CSS"), "text/css; charset=utf-8");
  EXPECT_EQ(http::content_type_for("app.js"), "application/javascript; charset=utf-8");
  EXPECT_EQ(http::content_type_for("logo.svg"), "image/svg+xml");
  EXPECT_EQ(http::content_type_for("x.png"), "image/png");
  EXPECT_EQ(http::content_type_for("app.js.gz"), "application/gzip");
  EXPECT_EQ(http::content_type_for("data.bin"), "application/octet-stream");
  EXPECT_EQ(http::content_type_for("README"), "application/octet-stream");
  EXPECT_EQ(http::content_type_for(".htaccess"), "application/octet-stream");
  EXPECT_EQ(http::content_type_for("dir.html/file"), "application/octet-stream");
}

TEST(StaticAnswer, WholeFile) {
  const http::StaticFile& f = file("index.html");
  const http::StaticReply r = http::answer_static(f, get());
  EXPECT_EQ(r.head.status, 200);
  EXPECT_EQ(r.head.content_length, f.content.size());
  EXPECT_EQ(r.content.data(), f.content.data());  // the embedded bytes, not a copy
  EXPECT_EQ(field(r.head, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(field(r.head, "ETag"), f.etag);
  EXPECT_EQ(field(r.head, "Last-Modified"), http::format_http_date(f.modified));
  EXPECT_EQ(field(r.head, "Accept-Ranges"), "bytes");
  EXPECT_EQ(field(r.head, "Vary"), "Accept-Encoding");  // it has a variant
  EXPECT_EQ(field(r.head, "Content-Encoding"), "(none)");
  EXPECT_EQ(field(http::answer_static(file("empty.txt"), get()).head, "Vary"), "(none)");
}

TEST(StaticAnswer, HeadHasTheLengthAndIgnoresRange) {
  const http::StaticFile& f = file("data.bin");
  const http::StaticReply r =
      http::answer_static(f, get({{"Range", "bytes=0-9"}}, http::Method::head));
  EXPECT_EQ(r.head.status, 200);
  EXPECT_EQ(r.head.content_length, 256u);
}

TEST(StaticAnswer, GzipVariantWhenAccepted) {
  const http::StaticFile& f = file("style.css");
  const http::StaticReply gz = http::answer_static(f, get({{"Accept-Encoding", "gzip, deflate"}}));
  EXPECT_EQ(gz.head.status, 200);
  EXPECT_EQ(field(gz.head, "Content-Encoding"), "gzip");
  EXPECT_EQ(field(gz.head, "Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(field(gz.head, "Vary"), "Accept-Encoding");
  EXPECT_EQ(field(gz.head, "ETag"), f.gzip_etag);
  EXPECT_EQ(gz.head.content_length, f.gzip.size());
  EXPECT_EQ(gz.content.data(), f.gzip.data());
  const http::StaticReply plain = http::answer_static(f, get({{"Accept-Encoding", "gzip;q=0"}}));
  EXPECT_EQ(field(plain.head, "Content-Encoding"), "(none)");
  EXPECT_EQ(field(plain.head, "Vary"), "Accept-Encoding");
  EXPECT_EQ(plain.content.size(), f.content.size());
  // The variant's own ETag validates the variant only.
  EXPECT_EQ(http::answer_static(
                f, get({{"Accept-Encoding", "gzip"}, {"If-None-Match", std::string(f.gzip_etag)}}))
                .head.status,
            304);
  EXPECT_EQ(http::answer_static(f, get({{"If-None-Match", std::string(f.gzip_etag)}})).head.status,
            200);
}

// RFC 9110 §12.5.3: the highest q wins; at equal q, br (the smaller).
TEST(StaticAnswer, BrotliVariantPreferredAtEqualWeight) {
  const http::StaticFile& f = file("style.css");
  auto coding = [&](std::string accept) {
    return field(http::answer_static(f, get({{"Accept-Encoding", accept}})).head,
                 "Content-Encoding");
  };
  EXPECT_EQ(coding("gzip, deflate, br"), "br");
  EXPECT_EQ(coding("br"), "br");
  EXPECT_EQ(coding("*"), "br");
  EXPECT_EQ(coding("br;q=0.5, gzip"), "gzip");
  EXPECT_EQ(coding("gzip;q=0.5, br;q=0.9"), "br");
  EXPECT_EQ(coding("br;q=0, *"), "gzip");
  EXPECT_EQ(coding("br;q=0, gzip;q=0"), "(none)");
  const http::StaticReply br = http::answer_static(f, get({{"Accept-Encoding", "br"}}));
  EXPECT_EQ(field(br.head, "Vary"), "Accept-Encoding");
  EXPECT_EQ(field(br.head, "ETag"), f.br_etag);
  EXPECT_EQ(br.head.content_length, f.br.size());
  EXPECT_EQ(br.content.data(), f.br.data());
  // The variant's own ETag validates it alone; a range is of its bytes.
  EXPECT_EQ(http::answer_static(
                f, get({{"Accept-Encoding", "br"}, {"If-None-Match", std::string(f.br_etag)}}))
                .head.status,
            304);
  EXPECT_EQ(http::answer_static(
                f, get({{"Accept-Encoding", "gzip"}, {"If-None-Match", std::string(f.br_etag)}}))
                .head.status,
            200);
  const http::StaticReply r =
      http::answer_static(f, get({{"Accept-Encoding", "br"}, {"Range", "bytes=0-1"}}));
  EXPECT_EQ(r.head.status, 206);
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 0-1/" + std::to_string(f.br.size()));
  EXPECT_EQ(r.content.data(), f.br.data());
}

TEST(StaticAnswer, NotModified) {
  const http::StaticFile& f = file("style.css");
  const http::StaticReply r = http::answer_static(f, get({{"If-None-Match", std::string(f.etag)}}));
  EXPECT_EQ(r.head.status, 304);
  EXPECT_FALSE(r.head.content_length);
  EXPECT_TRUE(r.content.empty());
  EXPECT_EQ(field(r.head, "ETag"), f.etag);
  EXPECT_EQ(field(r.head, "Vary"), "Accept-Encoding");
  EXPECT_EQ(http::answer_static(f, get({{"If-Modified-Since", http::format_http_date(f.modified)}}))
                .head.status,
            304);
  EXPECT_EQ(
      http::answer_static(f, get({{"If-Modified-Since", http::format_http_date(f.modified - 1)}}))
          .head.status,
      200);
}

TEST(StaticAnswer, PreconditionFailed) {
  const http::StaticFile& f = file("index.html");
  for (auto fields : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"If-Match", "\"nope\""}},
           {{"If-Unmodified-Since", http::format_http_date(f.modified - 1)}},
           {{"If-Match", "\"nope\""}, {"If-None-Match", std::string(f.etag)}}}) {
    const http::StaticReply r = http::answer_static(f, get(fields));
    EXPECT_EQ(r.head.status, 412);
    EXPECT_EQ(r.head.content_length, 0u);
    EXPECT_EQ(field(r.head, "Vary"), "Accept-Encoding");
  }
  EXPECT_EQ(http::answer_static(f, get({{"If-Match", std::string(f.etag)}})).head.status, 200);
}

TEST(StaticAnswer, Ranges) {
  const http::StaticFile& f = file("data.bin");  // bytes 0..255
  auto range = [&](std::string value, std::vector<std::pair<std::string, std::string>> more = {}) {
    more.push_back({"Range", value});
    return http::answer_static(f, get(more));
  };
  http::StaticReply r = range("bytes=10-19");
  EXPECT_EQ(r.head.status, 206);
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 10-19/256");
  EXPECT_EQ(r.head.content_length, 10u);
  EXPECT_EQ(r.content.data(), f.content.data() + 10);
  EXPECT_EQ(r.content[0], 10);
  r = range("bytes=-6");
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 250-255/256");
  EXPECT_EQ(r.content.size(), 6u);
  r = range("bytes=250-");
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 250-255/256");
  r = range("bytes=250-9999");
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 250-255/256");
  r = range("bytes=256-");
  EXPECT_EQ(r.head.status, 416);
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes */256");
  EXPECT_EQ(r.head.content_length, 0u);
  EXPECT_EQ(range("bytes=5-1").head.status, 200);      // invalid: ignored
  EXPECT_EQ(range("bytes=0-1,4-5").head.status, 200);  // multiple: the whole (docs/http.md)
  EXPECT_EQ(range("bytes=0-1,4-5").head.content_length, 256u);
  // If-Range: the range only while the validator still holds.
  EXPECT_EQ(range("bytes=0-1", {{"If-Range", std::string(f.etag)}}).head.status, 206);
  EXPECT_EQ(range("bytes=0-1", {{"If-Range", "\"old\""}}).head.status, 200);
  EXPECT_EQ(range("bytes=0-1", {{"If-Range", http::format_http_date(f.modified)}}).head.status,
            206);
  EXPECT_EQ(range("bytes=0-1", {{"If-Range", http::format_http_date(f.modified + 1)}}).head.status,
            200);
  // Preconditions come first: 304 beats the range.
  EXPECT_EQ(range("bytes=0-1", {{"If-None-Match", "*"}}).head.status, 304);
  // An empty file has no satisfiable range.
  EXPECT_EQ(http::answer_static(file("empty.txt"), get({{"Range", "bytes=0-"}})).head.status, 416);
}

TEST(StaticAnswer, RangeOfTheGzipVariant) {
  const http::StaticFile& f = file("style.css");
  const http::StaticReply r =
      http::answer_static(f, get({{"Accept-Encoding", "gzip"}, {"Range", "bytes=0-1"}}));
  EXPECT_EQ(r.head.status, 206);
  EXPECT_EQ(field(r.head, "Content-Range"), "bytes 0-1/" + std::to_string(f.gzip.size()));
  EXPECT_EQ(r.content.data(), f.gzip.data());  // gzip's magic
  EXPECT_EQ(r.content[0], 0x1f);
}
