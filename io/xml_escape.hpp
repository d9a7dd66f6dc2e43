// Text for an XML attribute value or element: the five characters XML reserves, escaped.
// The XDMF series and the .pvtp index both name files that may hold any of them.
#pragma once
#include <string>

namespace dunesim {

inline std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace dunesim
