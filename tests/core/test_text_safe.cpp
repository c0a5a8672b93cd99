// Output sanitizing: valid UTF-8, terminal-safe text, XML 1.0 characters, JSON string escapes.
#include <gtest/gtest.h>

#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {
namespace {

const std::string kFffd = "\xef\xbf\xbd";

TEST(TextSafe, ValidUtf8ReplacesMaximalBadSubparts) {
  EXPECT_EQ(valid_utf8("plain caf\xc3\xa9 \xf0\x9f\x99\x82"), "plain caf\xc3\xa9 \xf0\x9f\x99\x82");
  EXPECT_EQ(valid_utf8("a\xff"
                       "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(valid_utf8("\xe2\x82"), kFffd);  // truncated: one U+FFFD
  EXPECT_EQ(valid_utf8("\xe2\x82"
                       "A"),
            kFffd + "A");
  EXPECT_EQ(valid_utf8("\xc0\xaf"), kFffd + kFffd);                          // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), kFffd + kFffd + kFffd);              // a surrogate
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
}

TEST(TextSafe, TerminalSafeRemovesEscapesAndControls) {
  EXPECT_EQ(terminal_safe("llama\x1b[2J\x1b[1;32mPASS\x1b[0m"), "llamaPASS");
  EXPECT_EQ(terminal_safe("a\x1b]0;title\x07"
                          "b\x1b]8;;http://x\x1b\\c"),
            "abc");
  EXPECT_EQ(terminal_safe("a\x1b"
                          "cb"),
            "ab");  // ESC c: terminal reset
  EXPECT_EQ(terminal_safe("x\rFAKE\x08\x7f"), "xFAKE");
  EXPECT_EQ(terminal_safe("a\xc2\x9b"
                          "31mb"),
            "ab");  // C1 CSI
  EXPECT_EQ(terminal_safe("a\xc2\x85"
                          "b"),
            "ab");  // C1 NEL
  EXPECT_EQ(terminal_safe("line\n\tindent \xc2\xb7 ok"), "line\n\tindent \xc2\xb7 ok");
  EXPECT_EQ(terminal_safe("bad\xff"), "bad" + kFffd);
  EXPECT_EQ(terminal_safe("\x1b"), "");
  EXPECT_EQ(terminal_safe("\x1b[12"), "");  // cut-off CSI
}

TEST(TextSafe, XmlTextObeysXml10CharacterRules) {
  EXPECT_EQ(xml_text("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(xml_text("tab\tnl\ncr\r"), "tab\tnl\ncr\r");
  EXPECT_EQ(xml_text("\x01\x1b"), kFffd + kFffd);
  EXPECT_EQ(xml_text("\xef\xbf\xbe\xef\xbf\xbf"), kFffd + kFffd);  // U+FFFE, U+FFFF
  EXPECT_EQ(xml_text("\xc2\x80"), kFffd);                          // C1
  EXPECT_EQ(xml_text("\xff"), kFffd);
  EXPECT_EQ(xml_text("\xf0\x9f\x99\x82"), "\xf0\x9f\x99\x82");
}

TEST(TextSafe, JsonQuoteEscapesControlsAndRepairsUtf8) {
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("two\nlines\t\r"), "\"two\\nlines\\t\\r\"");
  EXPECT_EQ(json_quote("\x1b[2J\x01"), "\"\\u001b[2J\\u0001\"");
  EXPECT_EQ(json_quote("x\xff"), "\"x" + kFffd + "\"");
}

// One list rule for every comma-separated flag (--gpu, --model, --available-kv-gib).
TEST(TextSafe, SplitListRefusesEmptyItems) {
  EXPECT_EQ(split_list("h100", "--gpu", "gpu"), std::vector<std::string>{"h100"});
  EXPECT_EQ(split_list("3.18,20.5", "--available-kv-gib", "available-kv-gib"),
            (std::vector<std::string>{"3.18", "20.5"}));
  for (const char* bad : {"", ",", "a,", ",a", "a,,b"}) {
    try {
      split_list(bad, "--gpu", "gpu");
      ADD_FAILURE() << "'" << bad << "' was split";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("gpu"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("comma-separated"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kvplan
