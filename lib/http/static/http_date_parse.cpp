// HTTP-date recipients (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete
// rfc850-date and asctime-date, which a recipient MUST accept too.
#include <array>

#include "static/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::static_detail {
namespace {

constexpr std::array<std::string_view, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> short_days = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> long_days = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

// Howard Hinnant's days_from_civil (public domain): days since 1970-01-01.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

// A cursor over the value; each take_* consumes exactly its form or fails.
struct Cursor {
  std::string_view s;
  bool ok = true;

  bool literal(std::string_view text) {
    if (!ok || s.substr(0, text.size()) != text) return ok = false;
    s.remove_prefix(text.size());
    return true;
  }
  int digits(std::size_t count) {
    if (!ok || s.size() < count) return ok = false, 0;
    int v = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (!syntax::is_digit(s[i])) return ok = false, 0;
      v = v * 10 + (s[i] - '0');
    }
    s.remove_prefix(count);
    return v;
  }
  template <std::size_t N>
  int name(const std::array<std::string_view, N>& names) {  // case-sensitive (§5.6.7)
    for (std::size_t i = 0; ok && i < N; ++i)
      if (s.substr(0, names[i].size()) == names[i]) {
        s.remove_prefix(names[i].size());
        return int(i);
      }
    return ok = false, 0;
  }
};

std::optional<int64_t> to_seconds(int64_t year, int month, int day, int h, int m, int sec) {
  // A day past its month's end ("31 Feb") is not a date.
  static constexpr int month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day < 1 || day > month_days[month] || h > 23 || m > 59 || sec > 60) return std::nullopt;
  const int64_t days = days_from_civil(year, unsigned(month + 1), unsigned(day));
  if (month == 1 && day == 29 && days_from_civil(year, 3, 1) - days != 1) return std::nullopt;
  return days * 86400 + h * 3600 + m * 60 + sec;
}

std::optional<int64_t> time_and_rest(Cursor& c, int64_t year, int month, int day,
                                     std::string_view tail) {
  const int h = c.digits(2);
  c.literal(":");
  const int m = c.digits(2);
  c.literal(":");
  const int sec = c.digits(2);
  c.literal(tail);
  if (!c.ok || !c.s.empty()) return std::nullopt;
  return to_seconds(year, month, day, h, m, sec);
}

}  // namespace

std::optional<int64_t> parse_http_date(std::string_view value) {
  value = syntax::trim_ows(value);
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  {
    Cursor c{value};
    c.name(short_days);
    c.literal(", ");
    const int day = c.digits(2);
    c.literal(" ");
    const int month = c.name(months);
    c.literal(" ");
    const int year = c.digits(4);
    c.literal(" ");
    if (c.ok) return time_and_rest(c, year, month, day, " GMT");
  }
  // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year more
  // than 50 years ahead is in the past century (§5.6.7), here: 70-99 are
  // 19xx, 00-69 20xx.
  {
    Cursor c{value};
    c.name(long_days);
    c.literal(", ");
    const int day = c.digits(2);
    c.literal("-");
    const int month = c.name(months);
    c.literal("-");
    const int yy = c.digits(2);
    c.literal(" ");
    if (c.ok) return time_and_rest(c, yy >= 70 ? 1900 + yy : 2000 + yy, month, day, " GMT");
  }
  // asctime-date: "Sun Nov  6 08:49:37 1994"
  {
    Cursor c{value};
    c.name(short_days);
    c.literal(" ");
    const int month = c.name(months);
    c.literal(" ");
    int day = 0;
    if (!c.s.empty() && c.s.front() == ' ') {
      c.literal(" ");
      day = c.digits(1);
    } else {
      day = c.digits(2);
    }
    c.literal(" ");
    const int h = c.digits(2);
    c.literal(":");
    const int m = c.digits(2);
    c.literal(":");
    const int sec = c.digits(2);
    c.literal(" ");
    const int year = c.digits(4);
    if (c.ok && c.s.empty()) return to_seconds(year, month, day, h, m, sec);
  }
  return std::nullopt;
}

}  // namespace keel::http::static_detail
