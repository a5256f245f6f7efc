// IMF-fixdate (RFC 9110 §5.6.7), the only date format a sender generates.
#include <array>
#include <cstdio>
#include <string>

#include "keel/http/response_writer.hpp"

namespace keel::http {
namespace {

constexpr int64_t seconds_per_day = 86400;
constexpr std::array<const char*, 7> day_names = {
    "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};  // 1970-01-01 was a Thursday
constexpr std::array<const char*, 12> month_names = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// civil_from_days, public domain).
void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = unsigned(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = int64_t(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

}  // namespace

std::string format_http_date(int64_t unix_seconds) {
  int64_t days = unix_seconds / seconds_per_day;
  int64_t rest = unix_seconds % seconds_per_day;
  if (rest < 0) {
    rest += seconds_per_day;
    --days;
  }
  int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  civil_from_days(days, year, month, day);
  const int64_t weekday = ((days % 7) + 7) % 7;
  if (year < 0 || year > 9999) {  // not 4DIGIT: the rare case keeps printf's form
    char text[64];
    std::snprintf(text, sizeof text, "%s, %02u %s %04lld %02d:%02d:%02d GMT", day_names[weekday],
                  day, month_names[month - 1], static_cast<long long>(year), int(rest / 3600),
                  int(rest / 60 % 60), int(rest % 60));
    return text;
  }
  // Written digit by digit: every response carries a Date, and printf's cost showed in
  // profiles (2% of an HTTPS request's CPU).
  std::string text = "Thu, 01 Jan 1970 00:00:00 GMT";
  auto two = [&text](std::size_t at, unsigned v) {
    text[at] = char('0' + v / 10);
    text[at + 1] = char('0' + v % 10);
  };
  text.replace(0, 3, day_names[weekday]);
  two(5, day);
  text.replace(8, 3, month_names[month - 1]);
  two(12, unsigned(year / 100));
  two(14, unsigned(year % 100));
  two(17, unsigned(rest / 3600));
  two(20, unsigned(rest / 60 % 60));
  two(23, unsigned(rest % 60));
  return text;
}

}  // namespace keel::http
