#include "cmdline.hpp"

namespace keel::kernel {

std::vector<std::string> split_cmdline(std::string_view cmdline) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  bool quoted = false;
  for (std::size_t i = 0; i < cmdline.size(); ++i) {
    char c = cmdline[i];
    if (c == '\\' && i + 1 < cmdline.size()) {
      word += cmdline[++i];
      in_word = true;
    } else if (c == '"') {
      quoted = !quoted;
      in_word = true;  // "" is an empty word
    } else if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace keel::kernel
