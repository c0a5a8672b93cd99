// Hugging Face tokenizer.json tokenizers (BPE). The rules follow huggingface/tokenizers at commit
// 3ba8ad0061a885baf052bbb7bbd22857e73e0c4e (tokenizers/src/...); each rule cites its file.
#include "kvplan/sim/hf_tokenizer.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <unordered_map>

#include "kvplan/error.hpp"

namespace kvplan::sim {

namespace {

using nlohmann::json;

// ------------------------------------------------------------------ Unicode classes

struct CodeRange {
  char32_t lo, hi;
};

// General categories L* (letters) and N* (numbers), as ranges of code points. Generated from the
// Unicode Character Database 14.0 with Python 3.11's unicodedata:
//   [c for c in range(0x110000) if unicodedata.category(chr(c)).startswith('L')]   (and 'N'),
// merged into inclusive ranges (648 for letters, 134 for numbers). The tokenizers library matches
// \p{L} and \p{N} with Oniguruma's own tables, which may be of a newer Unicode version: code
// points assigned after 14.0 count as "other" here.
constexpr CodeRange kLetters[] = {
    {0x41, 0x5A},       {0x61, 0x7A},       {0xAA, 0xAA},       {0xB5, 0xB5},
    {0xBA, 0xBA},       {0xC0, 0xD6},       {0xD8, 0xF6},       {0xF8, 0x2C1},
    {0x2C6, 0x2D1},     {0x2E0, 0x2E4},     {0x2EC, 0x2EC},     {0x2EE, 0x2EE},
    {0x370, 0x374},     {0x376, 0x377},     {0x37A, 0x37D},     {0x37F, 0x37F},
    {0x386, 0x386},     {0x388, 0x38A},     {0x38C, 0x38C},     {0x38E, 0x3A1},
    {0x3A3, 0x3F5},     {0x3F7, 0x481},     {0x48A, 0x52F},     {0x531, 0x556},
    {0x559, 0x559},     {0x560, 0x588},     {0x5D0, 0x5EA},     {0x5EF, 0x5F2},
    {0x620, 0x64A},     {0x66E, 0x66F},     {0x671, 0x6D3},     {0x6D5, 0x6D5},
    {0x6E5, 0x6E6},     {0x6EE, 0x6EF},     {0x6FA, 0x6FC},     {0x6FF, 0x6FF},
    {0x710, 0x710},     {0x712, 0x72F},     {0x74D, 0x7A5},     {0x7B1, 0x7B1},
    {0x7CA, 0x7EA},     {0x7F4, 0x7F5},     {0x7FA, 0x7FA},     {0x800, 0x815},
    {0x81A, 0x81A},     {0x824, 0x824},     {0x828, 0x828},     {0x840, 0x858},
    {0x860, 0x86A},     {0x870, 0x887},     {0x889, 0x88E},     {0x8A0, 0x8C9},
    {0x904, 0x939},     {0x93D, 0x93D},     {0x950, 0x950},     {0x958, 0x961},
    {0x971, 0x980},     {0x985, 0x98C},     {0x98F, 0x990},     {0x993, 0x9A8},
    {0x9AA, 0x9B0},     {0x9B2, 0x9B2},     {0x9B6, 0x9B9},     {0x9BD, 0x9BD},
    {0x9CE, 0x9CE},     {0x9DC, 0x9DD},     {0x9DF, 0x9E1},     {0x9F0, 0x9F1},
    {0x9FC, 0x9FC},     {0xA05, 0xA0A},     {0xA0F, 0xA10},     {0xA13, 0xA28},
    {0xA2A, 0xA30},     {0xA32, 0xA33},     {0xA35, 0xA36},     {0xA38, 0xA39},
    {0xA59, 0xA5C},     {0xA5E, 0xA5E},     {0xA72, 0xA74},     {0xA85, 0xA8D},
    {0xA8F, 0xA91},     {0xA93, 0xAA8},     {0xAAA, 0xAB0},     {0xAB2, 0xAB3},
    {0xAB5, 0xAB9},     {0xABD, 0xABD},     {0xAD0, 0xAD0},     {0xAE0, 0xAE1},
    {0xAF9, 0xAF9},     {0xB05, 0xB0C},     {0xB0F, 0xB10},     {0xB13, 0xB28},
    {0xB2A, 0xB30},     {0xB32, 0xB33},     {0xB35, 0xB39},     {0xB3D, 0xB3D},
    {0xB5C, 0xB5D},     {0xB5F, 0xB61},     {0xB71, 0xB71},     {0xB83, 0xB83},
    {0xB85, 0xB8A},     {0xB8E, 0xB90},     {0xB92, 0xB95},     {0xB99, 0xB9A},
    {0xB9C, 0xB9C},     {0xB9E, 0xB9F},     {0xBA3, 0xBA4},     {0xBA8, 0xBAA},
    {0xBAE, 0xBB9},     {0xBD0, 0xBD0},     {0xC05, 0xC0C},     {0xC0E, 0xC10},
    {0xC12, 0xC28},     {0xC2A, 0xC39},     {0xC3D, 0xC3D},     {0xC58, 0xC5A},
    {0xC5D, 0xC5D},     {0xC60, 0xC61},     {0xC80, 0xC80},     {0xC85, 0xC8C},
    {0xC8E, 0xC90},     {0xC92, 0xCA8},     {0xCAA, 0xCB3},     {0xCB5, 0xCB9},
    {0xCBD, 0xCBD},     {0xCDD, 0xCDE},     {0xCE0, 0xCE1},     {0xCF1, 0xCF2},
    {0xD04, 0xD0C},     {0xD0E, 0xD10},     {0xD12, 0xD3A},     {0xD3D, 0xD3D},
    {0xD4E, 0xD4E},     {0xD54, 0xD56},     {0xD5F, 0xD61},     {0xD7A, 0xD7F},
    {0xD85, 0xD96},     {0xD9A, 0xDB1},     {0xDB3, 0xDBB},     {0xDBD, 0xDBD},
    {0xDC0, 0xDC6},     {0xE01, 0xE30},     {0xE32, 0xE33},     {0xE40, 0xE46},
    {0xE81, 0xE82},     {0xE84, 0xE84},     {0xE86, 0xE8A},     {0xE8C, 0xEA3},
    {0xEA5, 0xEA5},     {0xEA7, 0xEB0},     {0xEB2, 0xEB3},     {0xEBD, 0xEBD},
    {0xEC0, 0xEC4},     {0xEC6, 0xEC6},     {0xEDC, 0xEDF},     {0xF00, 0xF00},
    {0xF40, 0xF47},     {0xF49, 0xF6C},     {0xF88, 0xF8C},     {0x1000, 0x102A},
    {0x103F, 0x103F},   {0x1050, 0x1055},   {0x105A, 0x105D},   {0x1061, 0x1061},
    {0x1065, 0x1066},   {0x106E, 0x1070},   {0x1075, 0x1081},   {0x108E, 0x108E},
    {0x10A0, 0x10C5},   {0x10C7, 0x10C7},   {0x10CD, 0x10CD},   {0x10D0, 0x10FA},
    {0x10FC, 0x1248},   {0x124A, 0x124D},   {0x1250, 0x1256},   {0x1258, 0x1258},
    {0x125A, 0x125D},   {0x1260, 0x1288},   {0x128A, 0x128D},   {0x1290, 0x12B0},
    {0x12B2, 0x12B5},   {0x12B8, 0x12BE},   {0x12C0, 0x12C0},   {0x12C2, 0x12C5},
    {0x12C8, 0x12D6},   {0x12D8, 0x1310},   {0x1312, 0x1315},   {0x1318, 0x135A},
    {0x1380, 0x138F},   {0x13A0, 0x13F5},   {0x13F8, 0x13FD},   {0x1401, 0x166C},
    {0x166F, 0x167F},   {0x1681, 0x169A},   {0x16A0, 0x16EA},   {0x16F1, 0x16F8},
    {0x1700, 0x1711},   {0x171F, 0x1731},   {0x1740, 0x1751},   {0x1760, 0x176C},
    {0x176E, 0x1770},   {0x1780, 0x17B3},   {0x17D7, 0x17D7},   {0x17DC, 0x17DC},
    {0x1820, 0x1878},   {0x1880, 0x1884},   {0x1887, 0x18A8},   {0x18AA, 0x18AA},
    {0x18B0, 0x18F5},   {0x1900, 0x191E},   {0x1950, 0x196D},   {0x1970, 0x1974},
    {0x1980, 0x19AB},   {0x19B0, 0x19C9},   {0x1A00, 0x1A16},   {0x1A20, 0x1A54},
    {0x1AA7, 0x1AA7},   {0x1B05, 0x1B33},   {0x1B45, 0x1B4C},   {0x1B83, 0x1BA0},
    {0x1BAE, 0x1BAF},   {0x1BBA, 0x1BE5},   {0x1C00, 0x1C23},   {0x1C4D, 0x1C4F},
    {0x1C5A, 0x1C7D},   {0x1C80, 0x1C88},   {0x1C90, 0x1CBA},   {0x1CBD, 0x1CBF},
    {0x1CE9, 0x1CEC},   {0x1CEE, 0x1CF3},   {0x1CF5, 0x1CF6},   {0x1CFA, 0x1CFA},
    {0x1D00, 0x1DBF},   {0x1E00, 0x1F15},   {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},
    {0x1F48, 0x1F4D},   {0x1F50, 0x1F57},   {0x1F59, 0x1F59},   {0x1F5B, 0x1F5B},
    {0x1F5D, 0x1F5D},   {0x1F5F, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
    {0x1FBE, 0x1FBE},   {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},
    {0x1FD6, 0x1FDB},   {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},
    {0x2071, 0x2071},   {0x207F, 0x207F},   {0x2090, 0x209C},   {0x2102, 0x2102},
    {0x2107, 0x2107},   {0x210A, 0x2113},   {0x2115, 0x2115},   {0x2119, 0x211D},
    {0x2124, 0x2124},   {0x2126, 0x2126},   {0x2128, 0x2128},   {0x212A, 0x212D},
    {0x212F, 0x2139},   {0x213C, 0x213F},   {0x2145, 0x2149},   {0x214E, 0x214E},
    {0x2183, 0x2184},   {0x2C00, 0x2CE4},   {0x2CEB, 0x2CEE},   {0x2CF2, 0x2CF3},
    {0x2D00, 0x2D25},   {0x2D27, 0x2D27},   {0x2D2D, 0x2D2D},   {0x2D30, 0x2D67},
    {0x2D6F, 0x2D6F},   {0x2D80, 0x2D96},   {0x2DA0, 0x2DA6},   {0x2DA8, 0x2DAE},
    {0x2DB0, 0x2DB6},   {0x2DB8, 0x2DBE},   {0x2DC0, 0x2DC6},   {0x2DC8, 0x2DCE},
    {0x2DD0, 0x2DD6},   {0x2DD8, 0x2DDE},   {0x2E2F, 0x2E2F},   {0x3005, 0x3006},
    {0x3031, 0x3035},   {0x303B, 0x303C},   {0x3041, 0x3096},   {0x309D, 0x309F},
    {0x30A1, 0x30FA},   {0x30FC, 0x30FF},   {0x3105, 0x312F},   {0x3131, 0x318E},
    {0x31A0, 0x31BF},   {0x31F0, 0x31FF},   {0x3400, 0x4DBF},   {0x4E00, 0xA48C},
    {0xA4D0, 0xA4FD},   {0xA500, 0xA60C},   {0xA610, 0xA61F},   {0xA62A, 0xA62B},
    {0xA640, 0xA66E},   {0xA67F, 0xA69D},   {0xA6A0, 0xA6E5},   {0xA717, 0xA71F},
    {0xA722, 0xA788},   {0xA78B, 0xA7CA},   {0xA7D0, 0xA7D1},   {0xA7D3, 0xA7D3},
    {0xA7D5, 0xA7D9},   {0xA7F2, 0xA801},   {0xA803, 0xA805},   {0xA807, 0xA80A},
    {0xA80C, 0xA822},   {0xA840, 0xA873},   {0xA882, 0xA8B3},   {0xA8F2, 0xA8F7},
    {0xA8FB, 0xA8FB},   {0xA8FD, 0xA8FE},   {0xA90A, 0xA925},   {0xA930, 0xA946},
    {0xA960, 0xA97C},   {0xA984, 0xA9B2},   {0xA9CF, 0xA9CF},   {0xA9E0, 0xA9E4},
    {0xA9E6, 0xA9EF},   {0xA9FA, 0xA9FE},   {0xAA00, 0xAA28},   {0xAA40, 0xAA42},
    {0xAA44, 0xAA4B},   {0xAA60, 0xAA76},   {0xAA7A, 0xAA7A},   {0xAA7E, 0xAAAF},
    {0xAAB1, 0xAAB1},   {0xAAB5, 0xAAB6},   {0xAAB9, 0xAABD},   {0xAAC0, 0xAAC0},
    {0xAAC2, 0xAAC2},   {0xAADB, 0xAADD},   {0xAAE0, 0xAAEA},   {0xAAF2, 0xAAF4},
    {0xAB01, 0xAB06},   {0xAB09, 0xAB0E},   {0xAB11, 0xAB16},   {0xAB20, 0xAB26},
    {0xAB28, 0xAB2E},   {0xAB30, 0xAB5A},   {0xAB5C, 0xAB69},   {0xAB70, 0xABE2},
    {0xAC00, 0xD7A3},   {0xD7B0, 0xD7C6},   {0xD7CB, 0xD7FB},   {0xF900, 0xFA6D},
    {0xFA70, 0xFAD9},   {0xFB00, 0xFB06},   {0xFB13, 0xFB17},   {0xFB1D, 0xFB1D},
    {0xFB1F, 0xFB28},   {0xFB2A, 0xFB36},   {0xFB38, 0xFB3C},   {0xFB3E, 0xFB3E},
    {0xFB40, 0xFB41},   {0xFB43, 0xFB44},   {0xFB46, 0xFBB1},   {0xFBD3, 0xFD3D},
    {0xFD50, 0xFD8F},   {0xFD92, 0xFDC7},   {0xFDF0, 0xFDFB},   {0xFE70, 0xFE74},
    {0xFE76, 0xFEFC},   {0xFF21, 0xFF3A},   {0xFF41, 0xFF5A},   {0xFF66, 0xFFBE},
    {0xFFC2, 0xFFC7},   {0xFFCA, 0xFFCF},   {0xFFD2, 0xFFD7},   {0xFFDA, 0xFFDC},
    {0x10000, 0x1000B}, {0x1000D, 0x10026}, {0x10028, 0x1003A}, {0x1003C, 0x1003D},
    {0x1003F, 0x1004D}, {0x10050, 0x1005D}, {0x10080, 0x100FA}, {0x10280, 0x1029C},
    {0x102A0, 0x102D0}, {0x10300, 0x1031F}, {0x1032D, 0x10340}, {0x10342, 0x10349},
    {0x10350, 0x10375}, {0x10380, 0x1039D}, {0x103A0, 0x103C3}, {0x103C8, 0x103CF},
    {0x10400, 0x1049D}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB}, {0x10500, 0x10527},
    {0x10530, 0x10563}, {0x10570, 0x1057A}, {0x1057C, 0x1058A}, {0x1058C, 0x10592},
    {0x10594, 0x10595}, {0x10597, 0x105A1}, {0x105A3, 0x105B1}, {0x105B3, 0x105B9},
    {0x105BB, 0x105BC}, {0x10600, 0x10736}, {0x10740, 0x10755}, {0x10760, 0x10767},
    {0x10780, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA}, {0x10800, 0x10805},
    {0x10808, 0x10808}, {0x1080A, 0x10835}, {0x10837, 0x10838}, {0x1083C, 0x1083C},
    {0x1083F, 0x10855}, {0x10860, 0x10876}, {0x10880, 0x1089E}, {0x108E0, 0x108F2},
    {0x108F4, 0x108F5}, {0x10900, 0x10915}, {0x10920, 0x10939}, {0x10980, 0x109B7},
    {0x109BE, 0x109BF}, {0x10A00, 0x10A00}, {0x10A10, 0x10A13}, {0x10A15, 0x10A17},
    {0x10A19, 0x10A35}, {0x10A60, 0x10A7C}, {0x10A80, 0x10A9C}, {0x10AC0, 0x10AC7},
    {0x10AC9, 0x10AE4}, {0x10B00, 0x10B35}, {0x10B40, 0x10B55}, {0x10B60, 0x10B72},
    {0x10B80, 0x10B91}, {0x10C00, 0x10C48}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2},
    {0x10D00, 0x10D23}, {0x10E80, 0x10EA9}, {0x10EB0, 0x10EB1}, {0x10F00, 0x10F1C},
    {0x10F27, 0x10F27}, {0x10F30, 0x10F45}, {0x10F70, 0x10F81}, {0x10FB0, 0x10FC4},
    {0x10FE0, 0x10FF6}, {0x11003, 0x11037}, {0x11071, 0x11072}, {0x11075, 0x11075},
    {0x11083, 0x110AF}, {0x110D0, 0x110E8}, {0x11103, 0x11126}, {0x11144, 0x11144},
    {0x11147, 0x11147}, {0x11150, 0x11172}, {0x11176, 0x11176}, {0x11183, 0x111B2},
    {0x111C1, 0x111C4}, {0x111DA, 0x111DA}, {0x111DC, 0x111DC}, {0x11200, 0x11211},
    {0x11213, 0x1122B}, {0x11280, 0x11286}, {0x11288, 0x11288}, {0x1128A, 0x1128D},
    {0x1128F, 0x1129D}, {0x1129F, 0x112A8}, {0x112B0, 0x112DE}, {0x11305, 0x1130C},
    {0x1130F, 0x11310}, {0x11313, 0x11328}, {0x1132A, 0x11330}, {0x11332, 0x11333},
    {0x11335, 0x11339}, {0x1133D, 0x1133D}, {0x11350, 0x11350}, {0x1135D, 0x11361},
    {0x11400, 0x11434}, {0x11447, 0x1144A}, {0x1145F, 0x11461}, {0x11480, 0x114AF},
    {0x114C4, 0x114C5}, {0x114C7, 0x114C7}, {0x11580, 0x115AE}, {0x115D8, 0x115DB},
    {0x11600, 0x1162F}, {0x11644, 0x11644}, {0x11680, 0x116AA}, {0x116B8, 0x116B8},
    {0x11700, 0x1171A}, {0x11740, 0x11746}, {0x11800, 0x1182B}, {0x118A0, 0x118DF},
    {0x118FF, 0x11906}, {0x11909, 0x11909}, {0x1190C, 0x11913}, {0x11915, 0x11916},
    {0x11918, 0x1192F}, {0x1193F, 0x1193F}, {0x11941, 0x11941}, {0x119A0, 0x119A7},
    {0x119AA, 0x119D0}, {0x119E1, 0x119E1}, {0x119E3, 0x119E3}, {0x11A00, 0x11A00},
    {0x11A0B, 0x11A32}, {0x11A3A, 0x11A3A}, {0x11A50, 0x11A50}, {0x11A5C, 0x11A89},
    {0x11A9D, 0x11A9D}, {0x11AB0, 0x11AF8}, {0x11C00, 0x11C08}, {0x11C0A, 0x11C2E},
    {0x11C40, 0x11C40}, {0x11C72, 0x11C8F}, {0x11D00, 0x11D06}, {0x11D08, 0x11D09},
    {0x11D0B, 0x11D30}, {0x11D46, 0x11D46}, {0x11D60, 0x11D65}, {0x11D67, 0x11D68},
    {0x11D6A, 0x11D89}, {0x11D98, 0x11D98}, {0x11EE0, 0x11EF2}, {0x11FB0, 0x11FB0},
    {0x12000, 0x12399}, {0x12480, 0x12543}, {0x12F90, 0x12FF0}, {0x13000, 0x1342E},
    {0x14400, 0x14646}, {0x16800, 0x16A38}, {0x16A40, 0x16A5E}, {0x16A70, 0x16ABE},
    {0x16AD0, 0x16AED}, {0x16B00, 0x16B2F}, {0x16B40, 0x16B43}, {0x16B63, 0x16B77},
    {0x16B7D, 0x16B8F}, {0x16E40, 0x16E7F}, {0x16F00, 0x16F4A}, {0x16F50, 0x16F50},
    {0x16F93, 0x16F9F}, {0x16FE0, 0x16FE1}, {0x16FE3, 0x16FE3}, {0x17000, 0x187F7},
    {0x18800, 0x18CD5}, {0x18D00, 0x18D08}, {0x1AFF0, 0x1AFF3}, {0x1AFF5, 0x1AFFB},
    {0x1AFFD, 0x1AFFE}, {0x1B000, 0x1B122}, {0x1B150, 0x1B152}, {0x1B164, 0x1B167},
    {0x1B170, 0x1B2FB}, {0x1BC00, 0x1BC6A}, {0x1BC70, 0x1BC7C}, {0x1BC80, 0x1BC88},
    {0x1BC90, 0x1BC99}, {0x1D400, 0x1D454}, {0x1D456, 0x1D49C}, {0x1D49E, 0x1D49F},
    {0x1D4A2, 0x1D4A2}, {0x1D4A5, 0x1D4A6}, {0x1D4A9, 0x1D4AC}, {0x1D4AE, 0x1D4B9},
    {0x1D4BB, 0x1D4BB}, {0x1D4BD, 0x1D4C3}, {0x1D4C5, 0x1D505}, {0x1D507, 0x1D50A},
    {0x1D50D, 0x1D514}, {0x1D516, 0x1D51C}, {0x1D51E, 0x1D539}, {0x1D53B, 0x1D53E},
    {0x1D540, 0x1D544}, {0x1D546, 0x1D546}, {0x1D54A, 0x1D550}, {0x1D552, 0x1D6A5},
    {0x1D6A8, 0x1D6C0}, {0x1D6C2, 0x1D6DA}, {0x1D6DC, 0x1D6FA}, {0x1D6FC, 0x1D714},
    {0x1D716, 0x1D734}, {0x1D736, 0x1D74E}, {0x1D750, 0x1D76E}, {0x1D770, 0x1D788},
    {0x1D78A, 0x1D7A8}, {0x1D7AA, 0x1D7C2}, {0x1D7C4, 0x1D7CB}, {0x1DF00, 0x1DF1E},
    {0x1E100, 0x1E12C}, {0x1E137, 0x1E13D}, {0x1E14E, 0x1E14E}, {0x1E290, 0x1E2AD},
    {0x1E2C0, 0x1E2EB}, {0x1E7E0, 0x1E7E6}, {0x1E7E8, 0x1E7EB}, {0x1E7ED, 0x1E7EE},
    {0x1E7F0, 0x1E7FE}, {0x1E800, 0x1E8C4}, {0x1E900, 0x1E943}, {0x1E94B, 0x1E94B},
    {0x1EE00, 0x1EE03}, {0x1EE05, 0x1EE1F}, {0x1EE21, 0x1EE22}, {0x1EE24, 0x1EE24},
    {0x1EE27, 0x1EE27}, {0x1EE29, 0x1EE32}, {0x1EE34, 0x1EE37}, {0x1EE39, 0x1EE39},
    {0x1EE3B, 0x1EE3B}, {0x1EE42, 0x1EE42}, {0x1EE47, 0x1EE47}, {0x1EE49, 0x1EE49},
    {0x1EE4B, 0x1EE4B}, {0x1EE4D, 0x1EE4F}, {0x1EE51, 0x1EE52}, {0x1EE54, 0x1EE54},
    {0x1EE57, 0x1EE57}, {0x1EE59, 0x1EE59}, {0x1EE5B, 0x1EE5B}, {0x1EE5D, 0x1EE5D},
    {0x1EE5F, 0x1EE5F}, {0x1EE61, 0x1EE62}, {0x1EE64, 0x1EE64}, {0x1EE67, 0x1EE6A},
    {0x1EE6C, 0x1EE72}, {0x1EE74, 0x1EE77}, {0x1EE79, 0x1EE7C}, {0x1EE7E, 0x1EE7E},
    {0x1EE80, 0x1EE89}, {0x1EE8B, 0x1EE9B}, {0x1EEA1, 0x1EEA3}, {0x1EEA5, 0x1EEA9},
    {0x1EEAB, 0x1EEBB}, {0x20000, 0x2A6DF}, {0x2A700, 0x2B738}, {0x2B740, 0x2B81D},
    {0x2B820, 0x2CEA1}, {0x2CEB0, 0x2EBE0}, {0x2F800, 0x2FA1D}, {0x30000, 0x3134A},
};
constexpr CodeRange kNumbers[] = {
    {0x30, 0x39},       {0xB2, 0xB3},       {0xB9, 0xB9},       {0xBC, 0xBE},
    {0x660, 0x669},     {0x6F0, 0x6F9},     {0x7C0, 0x7C9},     {0x966, 0x96F},
    {0x9E6, 0x9EF},     {0x9F4, 0x9F9},     {0xA66, 0xA6F},     {0xAE6, 0xAEF},
    {0xB66, 0xB6F},     {0xB72, 0xB77},     {0xBE6, 0xBF2},     {0xC66, 0xC6F},
    {0xC78, 0xC7E},     {0xCE6, 0xCEF},     {0xD58, 0xD5E},     {0xD66, 0xD78},
    {0xDE6, 0xDEF},     {0xE50, 0xE59},     {0xED0, 0xED9},     {0xF20, 0xF33},
    {0x1040, 0x1049},   {0x1090, 0x1099},   {0x1369, 0x137C},   {0x16EE, 0x16F0},
    {0x17E0, 0x17E9},   {0x17F0, 0x17F9},   {0x1810, 0x1819},   {0x1946, 0x194F},
    {0x19D0, 0x19DA},   {0x1A80, 0x1A89},   {0x1A90, 0x1A99},   {0x1B50, 0x1B59},
    {0x1BB0, 0x1BB9},   {0x1C40, 0x1C49},   {0x1C50, 0x1C59},   {0x2070, 0x2070},
    {0x2074, 0x2079},   {0x2080, 0x2089},   {0x2150, 0x2182},   {0x2185, 0x2189},
    {0x2460, 0x249B},   {0x24EA, 0x24FF},   {0x2776, 0x2793},   {0x2CFD, 0x2CFD},
    {0x3007, 0x3007},   {0x3021, 0x3029},   {0x3038, 0x303A},   {0x3192, 0x3195},
    {0x3220, 0x3229},   {0x3248, 0x324F},   {0x3251, 0x325F},   {0x3280, 0x3289},
    {0x32B1, 0x32BF},   {0xA620, 0xA629},   {0xA6E6, 0xA6EF},   {0xA830, 0xA835},
    {0xA8D0, 0xA8D9},   {0xA900, 0xA909},   {0xA9D0, 0xA9D9},   {0xA9F0, 0xA9F9},
    {0xAA50, 0xAA59},   {0xABF0, 0xABF9},   {0xFF10, 0xFF19},   {0x10107, 0x10133},
    {0x10140, 0x10178}, {0x1018A, 0x1018B}, {0x102E1, 0x102FB}, {0x10320, 0x10323},
    {0x10341, 0x10341}, {0x1034A, 0x1034A}, {0x103D1, 0x103D5}, {0x104A0, 0x104A9},
    {0x10858, 0x1085F}, {0x10879, 0x1087F}, {0x108A7, 0x108AF}, {0x108FB, 0x108FF},
    {0x10916, 0x1091B}, {0x109BC, 0x109BD}, {0x109C0, 0x109CF}, {0x109D2, 0x109FF},
    {0x10A40, 0x10A48}, {0x10A7D, 0x10A7E}, {0x10A9D, 0x10A9F}, {0x10AEB, 0x10AEF},
    {0x10B58, 0x10B5F}, {0x10B78, 0x10B7F}, {0x10BA9, 0x10BAF}, {0x10CFA, 0x10CFF},
    {0x10D30, 0x10D39}, {0x10E60, 0x10E7E}, {0x10F1D, 0x10F26}, {0x10F51, 0x10F54},
    {0x10FC5, 0x10FCB}, {0x11052, 0x1106F}, {0x110F0, 0x110F9}, {0x11136, 0x1113F},
    {0x111D0, 0x111D9}, {0x111E1, 0x111F4}, {0x112F0, 0x112F9}, {0x11450, 0x11459},
    {0x114D0, 0x114D9}, {0x11650, 0x11659}, {0x116C0, 0x116C9}, {0x11730, 0x1173B},
    {0x118E0, 0x118F2}, {0x11950, 0x11959}, {0x11C50, 0x11C6C}, {0x11D50, 0x11D59},
    {0x11DA0, 0x11DA9}, {0x11FC0, 0x11FD4}, {0x12400, 0x1246E}, {0x16A60, 0x16A69},
    {0x16AC0, 0x16AC9}, {0x16B50, 0x16B59}, {0x16B5B, 0x16B61}, {0x16E80, 0x16E96},
    {0x1D2E0, 0x1D2F3}, {0x1D360, 0x1D378}, {0x1D7CE, 0x1D7FF}, {0x1E140, 0x1E149},
    {0x1E2F0, 0x1E2F9}, {0x1E8C7, 0x1E8CF}, {0x1E950, 0x1E959}, {0x1EC71, 0x1ECAB},
    {0x1ECAD, 0x1ECAF}, {0x1ECB1, 0x1ECB4}, {0x1ED01, 0x1ED2D}, {0x1ED2F, 0x1ED3D},
    {0x1F100, 0x1F10C}, {0x1FBF0, 0x1FBF9},
};

// Code points that NFC may change or move, so text without them is its own NFC (the quick check
// of UAX #15 answers YES for it): canonical combining class not 0, NFC_Quick_Check=No (NFC(c) != c)
// and NFC_Quick_Check=Maybe (the second character of a primary composite, and the Hangul V and T
// jamo U+1161..1175, U+11A8..11C2). Generated with Python 3.11's unicodedata (Unicode 14.0):
// combining(c) != 0, normalize('NFC', c) != c, or the second of a two-character canonical
// decomposition d with normalize('NFC', d) == the composite. 274 ranges, 2100 code points.
constexpr CodeRange kNfcUnsafe[] = {
    {0x300, 0x34E},     {0x350, 0x36F},     {0x374, 0x374},     {0x37E, 0x37E},
    {0x387, 0x387},     {0x483, 0x487},     {0x591, 0x5BD},     {0x5BF, 0x5BF},
    {0x5C1, 0x5C2},     {0x5C4, 0x5C5},     {0x5C7, 0x5C7},     {0x610, 0x61A},
    {0x64B, 0x65F},     {0x670, 0x670},     {0x6D6, 0x6DC},     {0x6DF, 0x6E4},
    {0x6E7, 0x6E8},     {0x6EA, 0x6ED},     {0x711, 0x711},     {0x730, 0x74A},
    {0x7EB, 0x7F3},     {0x7FD, 0x7FD},     {0x816, 0x819},     {0x81B, 0x823},
    {0x825, 0x827},     {0x829, 0x82D},     {0x859, 0x85B},     {0x898, 0x89F},
    {0x8CA, 0x8E1},     {0x8E3, 0x8FF},     {0x93C, 0x93C},     {0x94D, 0x94D},
    {0x951, 0x954},     {0x958, 0x95F},     {0x9BC, 0x9BC},     {0x9BE, 0x9BE},
    {0x9CD, 0x9CD},     {0x9D7, 0x9D7},     {0x9DC, 0x9DD},     {0x9DF, 0x9DF},
    {0x9FE, 0x9FE},     {0xA33, 0xA33},     {0xA36, 0xA36},     {0xA3C, 0xA3C},
    {0xA4D, 0xA4D},     {0xA59, 0xA5B},     {0xA5E, 0xA5E},     {0xABC, 0xABC},
    {0xACD, 0xACD},     {0xB3C, 0xB3C},     {0xB3E, 0xB3E},     {0xB4D, 0xB4D},
    {0xB56, 0xB57},     {0xB5C, 0xB5D},     {0xBBE, 0xBBE},     {0xBCD, 0xBCD},
    {0xBD7, 0xBD7},     {0xC3C, 0xC3C},     {0xC4D, 0xC4D},     {0xC55, 0xC56},
    {0xCBC, 0xCBC},     {0xCC2, 0xCC2},     {0xCCD, 0xCCD},     {0xCD5, 0xCD6},
    {0xD3B, 0xD3C},     {0xD3E, 0xD3E},     {0xD4D, 0xD4D},     {0xD57, 0xD57},
    {0xDCA, 0xDCA},     {0xDCF, 0xDCF},     {0xDDF, 0xDDF},     {0xE38, 0xE3A},
    {0xE48, 0xE4B},     {0xEB8, 0xEBA},     {0xEC8, 0xECB},     {0xF18, 0xF19},
    {0xF35, 0xF35},     {0xF37, 0xF37},     {0xF39, 0xF39},     {0xF43, 0xF43},
    {0xF4D, 0xF4D},     {0xF52, 0xF52},     {0xF57, 0xF57},     {0xF5C, 0xF5C},
    {0xF69, 0xF69},     {0xF71, 0xF76},     {0xF78, 0xF78},     {0xF7A, 0xF7D},
    {0xF80, 0xF84},     {0xF86, 0xF87},     {0xF93, 0xF93},     {0xF9D, 0xF9D},
    {0xFA2, 0xFA2},     {0xFA7, 0xFA7},     {0xFAC, 0xFAC},     {0xFB9, 0xFB9},
    {0xFC6, 0xFC6},     {0x102E, 0x102E},   {0x1037, 0x1037},   {0x1039, 0x103A},
    {0x108D, 0x108D},   {0x1161, 0x1175},   {0x11A8, 0x11C2},   {0x135D, 0x135F},
    {0x1714, 0x1715},   {0x1734, 0x1734},   {0x17D2, 0x17D2},   {0x17DD, 0x17DD},
    {0x18A9, 0x18A9},   {0x1939, 0x193B},   {0x1A17, 0x1A18},   {0x1A60, 0x1A60},
    {0x1A75, 0x1A7C},   {0x1A7F, 0x1A7F},   {0x1AB0, 0x1ABD},   {0x1ABF, 0x1ACE},
    {0x1B34, 0x1B35},   {0x1B44, 0x1B44},   {0x1B6B, 0x1B73},   {0x1BAA, 0x1BAB},
    {0x1BE6, 0x1BE6},   {0x1BF2, 0x1BF3},   {0x1C37, 0x1C37},   {0x1CD0, 0x1CD2},
    {0x1CD4, 0x1CE0},   {0x1CE2, 0x1CE8},   {0x1CED, 0x1CED},   {0x1CF4, 0x1CF4},
    {0x1CF8, 0x1CF9},   {0x1DC0, 0x1DFF},   {0x1F71, 0x1F71},   {0x1F73, 0x1F73},
    {0x1F75, 0x1F75},   {0x1F77, 0x1F77},   {0x1F79, 0x1F79},   {0x1F7B, 0x1F7B},
    {0x1F7D, 0x1F7D},   {0x1FBB, 0x1FBB},   {0x1FBE, 0x1FBE},   {0x1FC9, 0x1FC9},
    {0x1FCB, 0x1FCB},   {0x1FD3, 0x1FD3},   {0x1FDB, 0x1FDB},   {0x1FE3, 0x1FE3},
    {0x1FEB, 0x1FEB},   {0x1FEE, 0x1FEF},   {0x1FF9, 0x1FF9},   {0x1FFB, 0x1FFB},
    {0x1FFD, 0x1FFD},   {0x2000, 0x2001},   {0x20D0, 0x20DC},   {0x20E1, 0x20E1},
    {0x20E5, 0x20F0},   {0x2126, 0x2126},   {0x212A, 0x212B},   {0x2329, 0x232A},
    {0x2ADC, 0x2ADC},   {0x2CEF, 0x2CF1},   {0x2D7F, 0x2D7F},   {0x2DE0, 0x2DFF},
    {0x302A, 0x302F},   {0x3099, 0x309A},   {0xA66F, 0xA66F},   {0xA674, 0xA67D},
    {0xA69E, 0xA69F},   {0xA6F0, 0xA6F1},   {0xA806, 0xA806},   {0xA82C, 0xA82C},
    {0xA8C4, 0xA8C4},   {0xA8E0, 0xA8F1},   {0xA92B, 0xA92D},   {0xA953, 0xA953},
    {0xA9B3, 0xA9B3},   {0xA9C0, 0xA9C0},   {0xAAB0, 0xAAB0},   {0xAAB2, 0xAAB4},
    {0xAAB7, 0xAAB8},   {0xAABE, 0xAABF},   {0xAAC1, 0xAAC1},   {0xAAF6, 0xAAF6},
    {0xABED, 0xABED},   {0xF900, 0xFA0D},   {0xFA10, 0xFA10},   {0xFA12, 0xFA12},
    {0xFA15, 0xFA1E},   {0xFA20, 0xFA20},   {0xFA22, 0xFA22},   {0xFA25, 0xFA26},
    {0xFA2A, 0xFA6D},   {0xFA70, 0xFAD9},   {0xFB1D, 0xFB1F},   {0xFB2A, 0xFB36},
    {0xFB38, 0xFB3C},   {0xFB3E, 0xFB3E},   {0xFB40, 0xFB41},   {0xFB43, 0xFB44},
    {0xFB46, 0xFB4E},   {0xFE20, 0xFE2F},   {0x101FD, 0x101FD}, {0x102E0, 0x102E0},
    {0x10376, 0x1037A}, {0x10A0D, 0x10A0D}, {0x10A0F, 0x10A0F}, {0x10A38, 0x10A3A},
    {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC},
    {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11046, 0x11046}, {0x11070, 0x11070},
    {0x1107F, 0x1107F}, {0x110B9, 0x110BA}, {0x11100, 0x11102}, {0x11127, 0x11127},
    {0x11133, 0x11134}, {0x11173, 0x11173}, {0x111C0, 0x111C0}, {0x111CA, 0x111CA},
    {0x11235, 0x11236}, {0x112E9, 0x112EA}, {0x1133B, 0x1133C}, {0x1133E, 0x1133E},
    {0x1134D, 0x1134D}, {0x11357, 0x11357}, {0x11366, 0x1136C}, {0x11370, 0x11374},
    {0x11442, 0x11442}, {0x11446, 0x11446}, {0x1145E, 0x1145E}, {0x114B0, 0x114B0},
    {0x114BA, 0x114BA}, {0x114BD, 0x114BD}, {0x114C2, 0x114C3}, {0x115AF, 0x115AF},
    {0x115BF, 0x115C0}, {0x1163F, 0x1163F}, {0x116B6, 0x116B7}, {0x1172B, 0x1172B},
    {0x11839, 0x1183A}, {0x11930, 0x11930}, {0x1193D, 0x1193E}, {0x11943, 0x11943},
    {0x119E0, 0x119E0}, {0x11A34, 0x11A34}, {0x11A47, 0x11A47}, {0x11A99, 0x11A99},
    {0x11C3F, 0x11C3F}, {0x11D42, 0x11D42}, {0x11D44, 0x11D45}, {0x11D97, 0x11D97},
    {0x16AF0, 0x16AF4}, {0x16B30, 0x16B36}, {0x16FF0, 0x16FF1}, {0x1BC9E, 0x1BC9E},
    {0x1D15E, 0x1D169}, {0x1D16D, 0x1D172}, {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B},
    {0x1D1AA, 0x1D1AD}, {0x1D1BB, 0x1D1C0}, {0x1D242, 0x1D244}, {0x1E000, 0x1E006},
    {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024}, {0x1E026, 0x1E02A},
    {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF}, {0x1E8D0, 0x1E8D6},
    {0x1E944, 0x1E94A}, {0x2F800, 0x2FA1D},
};

bool in_table(std::span<const CodeRange> table, char32_t cp) {
  auto it = std::upper_bound(table.begin(), table.end(), cp,
                             [](char32_t c, const CodeRange& r) { return c < r.lo; });
  return it != table.begin() && cp <= std::prev(it)->hi;
}

// \s in Oniguruma's Unicode mode: the White_Space property (PropList.txt).
bool is_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

constexpr char32_t kInvalid = 0xFFFFFFFF;  // a byte that starts no valid UTF-8 sequence

// Length of the valid UTF-8 sequence at s[i] (1..4) with its code point, or 0 when the bytes there
// start no valid sequence (overlong forms, surrogates and values past U+10FFFF are invalid).
std::size_t utf8_valid_len(std::string_view s, std::size_t i, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  std::size_t n;
  char32_t v;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, v = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, v = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, v = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  *cp = v;
  return n;
}

// One "character" of the text: a valid UTF-8 sequence, or one invalid byte.
std::size_t char_len(std::string_view s, std::size_t i, char32_t* cp) {
  const std::size_t n = utf8_valid_len(s, i, cp);
  if (n != 0) return n;
  *cp = kInvalid;
  return 1;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool valid_utf8(std::string_view s) {
  char32_t cp;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_valid_len(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Rust's String::from_utf8_lossy (what the ByteLevel decoder returns): each maximal prefix of a
// valid sequence that is cut short, and each byte that starts none, becomes one U+FFFD.
std::string utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  char32_t cp;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_valid_len(s, i, &cp);
    if (n != 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    // Skip the lead byte and the continuation bytes that would still have been valid.
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t need = b0 >= 0xC2 && b0 <= 0xDF   ? 2
                       : b0 >= 0xE0 && b0 <= 0xEF ? 3
                       : b0 >= 0xF0 && b0 <= 0xF4 ? 4
                                                  : 1;
    std::size_t k = 1;
    while (k < need && i + k < s.size()) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      unsigned char lo = 0x80, hi = 0xBF;
      if (k == 1 && b0 == 0xE0) lo = 0xA0;
      if (k == 1 && b0 == 0xED) hi = 0x9F;
      if (k == 1 && b0 == 0xF0) lo = 0x90;
      if (k == 1 && b0 == 0xF4) hi = 0x8F;
      if (b < lo || b > hi) break;
      ++k;
    }
    out += "\xEF\xBF\xBD";
    i += k;
  }
  return out;
}

// ------------------------------------------------------------------ the split regexes

enum class Cls { letter, number, space, other };

struct Chars {
  std::vector<char32_t> cp;
  std::vector<std::size_t> at;  // byte offset of each character, plus the end
};

Chars chars_of(std::string_view s) {
  Chars c;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp;
    const std::size_t n = char_len(s, i, &cp);
    c.cp.push_back(cp);
    c.at.push_back(i);
    i += n;
  }
  c.at.push_back(s.size());
  return c;
}

Cls cls(char32_t cp) {
  if (cp == kInvalid) return Cls::other;
  if (is_space(cp)) return Cls::space;
  if (is_unicode_letter(cp)) return Cls::letter;
  if (is_unicode_number(cp)) return Cls::number;
  return Cls::other;
}

// One regex alternation, leftmost-first as Oniguruma runs it, matched at character k; returns the
// match's length in characters, 0 when no alternative matches there.
class Matcher {
 public:
  Matcher(const Chars& c, SplitRegex re) : c_(c), re_(re), n_(c.cp.size()) {}

  std::size_t match(std::size_t k) const {
    if (std::size_t m = contraction(k)) return m;
    if (re_ == SplitRegex::gpt2) {
      for (Cls want : {Cls::letter, Cls::number, Cls::other})
        if (std::size_t m = space_then_run(k, want)) return m;
    } else {
      if (std::size_t m = letters_llama3(k)) return m;
      if (std::size_t m = run(k, Cls::number, re_ == SplitRegex::llama3 ? 3 : 1)) return m;
      if (std::size_t m = space_then_run(k, Cls::other)) return m + newlines(k + m);
      if (std::size_t m = spaces_to_last_newline(k)) return m;
    }
    return spaces_not_before_nonspace(k);
  }

 private:
  Cls at(std::size_t k) const { return cls(c_.cp[k]); }
  std::size_t run(std::size_t k, Cls want, std::size_t max = SIZE_MAX) const {
    std::size_t m = 0;
    while (k + m < n_ && m < max && at(k + m) == want) ++m;
    return m;
  }
  bool eq(std::size_t k, char32_t lower) const {
    if (k >= n_) return false;
    const char32_t c = c_.cp[k];
    if (c == lower) return true;
    if (re_ == SplitRegex::gpt2) return false;  // GPT-2's contractions are case-sensitive
    // (?i:...): ASCII case, and U+017F LATIN SMALL LETTER LONG S, whose simple case folding
    // (CaseFolding.txt) is 's'.
    return c == lower - 0x20 || (lower == 's' && c == 0x17F);
  }
  // 's|'t|'re|'ve|'m|'ll|'d
  std::size_t contraction(std::size_t k) const {
    if (k >= n_ || c_.cp[k] != '\'') return 0;
    if (eq(k + 1, 's') || eq(k + 1, 't') || eq(k + 1, 'm') || eq(k + 1, 'd')) {
      // 're / 've / 'll come after 's 't in the alternation but cannot start with those letters.
      return 2;
    }
    if ((eq(k + 1, 'r') && eq(k + 2, 'e')) || (eq(k + 1, 'v') && eq(k + 2, 'e')) ||
        (eq(k + 1, 'l') && eq(k + 2, 'l')))
      return 3;
    return 0;
  }
  // " ?X+" for X a class: an optional ASCII space, then a run of X.
  std::size_t space_then_run(std::size_t k, Cls want) const {
    if (k < n_ && c_.cp[k] == ' ')
      if (std::size_t m = run(k + 1, want)) return m + 1;
    return run(k, want);
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  std::size_t letters_llama3(std::size_t k) const {
    if (k >= n_) return 0;
    const char32_t c = c_.cp[k];
    const Cls ck = at(k);
    if (c != '\r' && c != '\n' && ck != Cls::letter && ck != Cls::number)
      if (std::size_t m = run(k + 1, Cls::letter)) return m + 1;
    return run(k, Cls::letter);
  }
  // [\r\n]*
  std::size_t newlines(std::size_t k) const {
    std::size_t m = 0;
    while (k + m < n_ && (c_.cp[k + m] == '\r' || c_.cp[k + m] == '\n')) ++m;
    return m;
  }
  // \s*[\r\n]+ : the whitespace run up to and including its last CR or LF.
  std::size_t spaces_to_last_newline(std::size_t k) const {
    const std::size_t r = run(k, Cls::space);
    for (std::size_t m = r; m > 0; --m)
      if (c_.cp[k + m - 1] == '\r' || c_.cp[k + m - 1] == '\n') return m;
    return 0;
  }
  // \s+(?!\S)|\s+ : a whitespace run, less its last character when a non-space follows it.
  std::size_t spaces_not_before_nonspace(std::size_t k) const {
    const std::size_t r = run(k, Cls::space);
    if (r >= 2 && k + r < n_) return r - 1;
    return r;
  }

  const Chars& c_;
  SplitRegex re_;
  std::size_t n_;
};

// The GPT-2 byte-to-unicode map (tokenizers/src/pre_tokenizers/byte_level.rs, bytes_char, after
// openai/gpt-2 src/encoder.py): printable Latin-1 bytes map to themselves, the other 68 bytes to
// U+0100 + their order.
struct ByteMap {
  std::string to_char[256];
  std::unordered_map<char32_t, unsigned char> to_byte;
  ByteMap() {
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      const char32_t cp = printable ? static_cast<char32_t>(b) : next++;
      append_utf8(to_char[b], cp);
      to_byte[cp] = static_cast<unsigned char>(b);
    }
  }
};

const ByteMap& byte_map() {
  static const ByteMap m;
  return m;
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  std::string out;
  std::size_t i = 0;
  for (std::size_t j; (j = s.find(from, i)) != std::string_view::npos; i = j + from.size())
    out.append(s.substr(i, j - i)).append(to);
  out.append(s.substr(i));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

bool is_unicode_letter(char32_t cp) { return in_table(kLetters, cp); }
bool is_unicode_number(char32_t cp) { return in_table(kNumbers, cp); }

std::vector<std::string_view> regex_split(std::string_view text, SplitRegex re) {
  const Chars c = chars_of(text);
  const Matcher m(c, re);
  std::vector<std::string_view> out;
  // SplitDelimiterBehavior::Isolated: every match is a piece, and so is each gap between matches
  // (none with these patterns: every character is a letter, number, space or other, and each
  // class has an alternative that matches it).
  std::size_t gap = 0, k = 0;
  const std::size_t n = c.cp.size();
  while (k < n) {
    const std::size_t len = m.match(k);
    if (len == 0) {
      ++k;
      continue;
    }
    if (gap < k) out.push_back(text.substr(c.at[gap], c.at[k] - c.at[gap]));
    out.push_back(text.substr(c.at[k], c.at[k + len] - c.at[k]));
    k += len;
    gap = k;
  }
  if (gap < n) out.push_back(text.substr(c.at[gap]));
  return out;
}

// ------------------------------------------------------------------ the tokenizer

namespace {

constexpr std::uint64_t kMaxFileBytes = 64ull << 20;  // Llama 3's tokenizer.json is 9 MB
constexpr std::uint64_t kMaxJsonValues = 1ull << 23;  // Llama 3's holds about 10^6
constexpr int kMaxJsonDepth = 64;                     // real files nest 5 levels
constexpr std::int64_t kMaxTokenId = (1 << 22) - 1;   // Gemma's 256K vocabulary fits

const std::string kMetaspace = "\xE2\x96\x81";  // U+2581 "▁"

struct AddedToken {
  std::int32_t id = 0;
  std::string content;
  std::string pattern;  // content, normalized when `normalized`
  bool special = false, normalized = true, lstrip = false, rstrip = false, single_word = false;
};

struct NormStep {
  enum class Kind { prepend, replace, nfc } kind;
  std::string a, b;  // prepend: a; replace: a -> b; nfc: a = the JSON pointer of the step
};

enum class Prepend { always, first, never };

struct PreStep {
  enum class Kind { byte_level, split, metaspace } kind;
  bool add_prefix_space = false, use_regex = true;  // byte_level
  SplitRegex re = SplitRegex::gpt2;                 // split
  std::string replacement;                          // metaspace
  Prepend prepend = Prepend::always;
  bool split = true;
};

struct DecStep {
  enum class Kind { replace, byte_fallback, fuse, strip, byte_level, metaspace } kind;
  std::string a, b;  // replace: a -> b; strip: a = the character; metaspace: a = replacement
  std::uint64_t start = 0, stop = 0;
  Prepend prepend = Prepend::always;
};

// A piece of the input on its way through the pipeline.
struct Piece {
  std::string text;
  std::int32_t added = -1;  // the added token's id when this piece is one
  bool at_start = false;    // begins at offset 0 of the original text
};

std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
         static_cast<std::uint32_t>(b);
}

}  // namespace

struct HfTokenizer::Impl {
  std::string path;
  std::vector<std::string> pieces;  // [size]: token strings, "" for ids nobody holds
  std::vector<std::uint8_t> held;   // [size]: 1 when some token has that id
  std::unordered_map<std::string, std::int32_t> vocab;
  struct Merge {
    std::uint32_t rank;
    std::int32_t id;
  };
  std::unordered_map<std::uint64_t, Merge> merges;
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::int32_t unk = -1;
  std::int32_t byte_ids[256];
  std::vector<AddedToken> added;
  std::vector<std::uint8_t> special;  // [size]: 1 for special added tokens
  std::vector<NormStep> normalizer;
  std::vector<PreStep> pre;
  std::vector<DecStep> decoder;
  bool has_decoder = false;
  std::int32_t bos = -1, eos = -1;

  std::string normalize(std::string s) const;
  void check_nfc_stable(std::string_view s, const std::string& ptr) const;
  std::vector<Piece> split_added(std::vector<Piece> in, bool normalized) const;
  std::vector<std::string> pre_tokenize(const Piece& p) const;
  void bpe(const std::string& word, std::vector<std::int32_t>& out) const;
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const;
};

// normalizers/unicode.rs NFC, for the text it leaves unchanged: text holding a character NFC may
// change (kNfcUnsafe) is refused, since kvplan carries no composition tables.
void HfTokenizer::Impl::check_nfc_stable(std::string_view s, const std::string& ptr) const {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp;
    i += char_len(s, i, &cp);
    if (cp != kInvalid && in_table(kNfcUnsafe, cp)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
      throw Error(path, ptr,
                  std::string("NFC: the text holds ") + buf +
                      ", a character NFC may change or reorder; kvplan normalizes only text "
                      "that NFC leaves unchanged");
    }
  }
}

// normalizers/prepend.rs (only a non-empty string is prepended to), normalizers/replace.rs.
std::string HfTokenizer::Impl::normalize(std::string s) const {
  for (const auto& st : normalizer) {
    if (st.kind == NormStep::Kind::prepend) {
      if (!s.empty()) s = st.a + s;
    } else if (st.kind == NormStep::Kind::replace) {
      s = replace_all(s, st.a, st.b);
    } else {
      check_nfc_stable(s, st.a);
    }
  }
  return s;
}

namespace {

bool word_char(char32_t cp) {
  // tokenizers' ends_with_word / starts_with_word: char::is_alphanumeric or '_'.
  return cp == '_' || (cp != kInvalid && (is_unicode_letter(cp) || is_unicode_number(cp)));
}

// Where the last character of a non-empty s begins (its last byte when that is no valid UTF-8).
std::size_t last_char_start(std::string_view s) {
  std::size_t i = s.size() - 1;
  for (std::size_t k = 0; k < 3 && i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; ++k)
    --i;
  char32_t cp;
  return char_len(s, i, &cp) == s.size() - i ? i : s.size() - 1;
}

char32_t last_char(std::string_view s) {
  char32_t cp;
  char_len(s, last_char_start(s), &cp);
  return cp;
}

}  // namespace

// tokenizer/added_vocabulary.rs, find_matches: leftmost-longest matches of the added tokens'
// patterns, non-overlapping; single_word drops a match inside a word, lstrip / rstrip take the
// spaces beside a match into it.
std::vector<Piece> HfTokenizer::Impl::split_added(std::vector<Piece> in, bool normalized) const {
  // Candidates by first byte, longest first: the first that matches at a position is the
  // leftmost-longest match there.
  std::vector<const AddedToken*> by_byte[256];
  bool any = false;
  for (const auto& t : added)
    if (t.normalized == normalized && !t.pattern.empty()) {
      by_byte[static_cast<unsigned char>(t.pattern[0])].push_back(&t);
      any = true;
    }
  if (!any) return in;
  for (auto& list : by_byte)
    std::stable_sort(list.begin(), list.end(), [](const AddedToken* a, const AddedToken* b) {
      return a->pattern.size() > b->pattern.size();
    });
  std::vector<Piece> out;
  for (auto& p : in) {
    if (p.added >= 0) {
      out.push_back(std::move(p));
      continue;
    }
    const std::string& s = p.text;
    std::size_t done = 0, i = 0;
    bool first = true;
    auto emit = [&](std::size_t a, std::size_t b, std::int32_t id) {
      out.push_back({s.substr(a, b - a), id, p.at_start && first && a == 0});
      first = false;
    };
    while (i < s.size()) {
      const AddedToken* best = nullptr;
      for (const AddedToken* t : by_byte[static_cast<unsigned char>(s[i])])
        if (s.compare(i, t->pattern.size(), t->pattern) == 0) {
          best = t;
          break;
        }
      if (!best) {
        ++i;
        continue;
      }
      std::size_t start = i, stop = i + best->pattern.size();
      i = stop;
      if (best->single_word) {
        char32_t after = 0;
        const bool before_ok = start == 0 || !word_char(last_char(s.substr(0, start)));
        if (stop < s.size()) char_len(s, stop, &after);
        const bool after_ok = stop == s.size() || !word_char(after);
        if (!before_ok || !after_ok) continue;
      }
      // space_leftmost_at_end / space_rightmost_at_start: whitespace as char::is_whitespace.
      if (best->lstrip)
        while (start > done) {
          const std::size_t b =
              done + last_char_start(std::string_view(s).substr(done, start - done));
          char32_t cp;
          if (char_len(s, b, &cp) != start - b || !is_space(cp)) break;
          start = b;
        }
      if (best->rstrip)
        for (char32_t cp; stop < s.size();) {
          const std::size_t n = char_len(s, stop, &cp);
          if (!is_space(cp)) break;
          stop += n;
        }
      i = stop;
      if (done < start) emit(done, start, -1);
      emit(start, stop, best->id);
      done = stop;
    }
    if (done < s.size() || s.empty()) emit(done, s.size(), -1);
  }
  return out;
}

// pre_tokenizers/byte_level.rs, split.rs, metaspace.rs, sequence.rs: each step maps every piece
// to pieces.
std::vector<std::string> HfTokenizer::Impl::pre_tokenize(const Piece& p) const {
  std::vector<std::string> words{p.text};
  for (const auto& st : pre) {
    std::vector<std::string> next;
    for (std::size_t w = 0; w < words.size(); ++w) {
      std::string s = std::move(words[w]);
      switch (st.kind) {
        case PreStep::Kind::byte_level: {
          if (st.add_prefix_space && !starts_with(s, " ")) s = " " + s;
          std::vector<std::string_view> parts;
          if (st.use_regex)
            parts = regex_split(s, SplitRegex::gpt2);
          else
            parts.push_back(s);
          for (auto part : parts) {
            std::string mapped;
            for (char ch : part) mapped += byte_map().to_char[static_cast<unsigned char>(ch)];
            next.push_back(std::move(mapped));
          }
          break;
        }
        case PreStep::Kind::split:
          for (auto part : regex_split(s, st.re)) next.emplace_back(part);
          break;
        case PreStep::Kind::metaspace: {
          s = replace_all(s, " ", st.replacement);
          const bool prepend = !starts_with(s, st.replacement) &&
                               (st.prepend == Prepend::always ||
                                (st.prepend == Prepend::first && p.at_start && w == 0));
          if (prepend) s = st.replacement + s;
          if (!st.split) {
            next.push_back(std::move(s));
            break;
          }
          // SplitDelimiterBehavior::MergedWithNext: each replacement begins a new piece.
          std::size_t from = 0;
          for (std::size_t j = s.find(st.replacement, 1); j != std::string::npos;
               j = s.find(st.replacement, j + 1)) {
            if (j > from) next.push_back(s.substr(from, j - from));
            from = j;
          }
          if (from < s.size()) next.push_back(s.substr(from));
          break;
        }
      }
    }
    words = std::move(next);
  }
  return words;
}

// models/bpe/model.rs (merge_word, byte_fallback, fuse_unk, ignore_merges) and word.rs
// (merge_all): the word's characters become tokens, then the adjacent pair of lowest merge rank
// merges (the leftmost on a tie), until no pair of the merges table is left. A heap over the pairs
// makes it O(n log n); a popped pair is used only while both its symbols still stand.
void HfTokenizer::Impl::bpe(const std::string& word, std::vector<std::int32_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    auto it = vocab.find(word);
    if (it != vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  struct Sym {
    std::int32_t id;
    std::int32_t prev, next;  // linked list, -1 at the ends
    bool alive;
  };
  std::vector<Sym> sym;
  std::int32_t pending_unk = -1;
  auto push = [&](std::int32_t id) {
    const auto n = static_cast<std::int32_t>(sym.size());
    sym.push_back({id, n - 1, n + 1, true});
  };
  for (std::size_t i = 0; i < word.size();) {
    char32_t cp;
    const std::size_t n = char_len(word, i, &cp);
    const std::string ch = word.substr(i, n);
    i += n;
    auto it = vocab.find(ch);
    if (it != vocab.end()) {
      if (pending_unk >= 0) push(pending_unk), pending_unk = -1;
      push(it->second);
      continue;
    }
    if (byte_fallback) {
      bool all = true;
      for (char b : ch) all = all && byte_ids[static_cast<unsigned char>(b)] >= 0;
      if (all) {
        // As the library: a pending unknown is not flushed before byte tokens.
        for (char b : ch) push(byte_ids[static_cast<unsigned char>(b)]);
        continue;
      }
    }
    if (unk >= 0) {
      if (pending_unk >= 0 && !fuse_unk) push(pending_unk);
      pending_unk = unk;
    }
    // Without an unknown token the library drops the character; so does this.
  }
  if (pending_unk >= 0) push(pending_unk);
  if (sym.empty()) return;
  sym.back().next = -1;

  struct Cand {
    std::uint32_t rank;
    std::int32_t pos, id;
    bool operator>(const Cand& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
  auto consider = [&](std::int32_t left) {
    if (left < 0 || sym[left].next < 0) return;
    auto it = merges.find(pair_key(sym[left].id, sym[sym[left].next].id));
    if (it != merges.end()) heap.push({it->second.rank, left, it->second.id});
  };
  for (std::int32_t i = 0; i + 1 < static_cast<std::int32_t>(sym.size()); ++i) consider(i);
  while (!heap.empty()) {
    const Cand c = heap.top();
    heap.pop();
    Sym& l = sym[c.pos];
    if (!l.alive || l.next < 0) continue;
    auto it = merges.find(pair_key(l.id, sym[l.next].id));
    if (it == merges.end() || it->second.id != c.id) continue;  // a stale entry
    Sym& r = sym[l.next];
    r.alive = false;
    l.id = c.id;
    l.next = r.next;
    if (r.next >= 0) sym[r.next].prev = c.pos;
    consider(l.prev);
    consider(c.pos);
  }
  for (std::int32_t i = 0; i >= 0; i = sym[i].next) out.push_back(sym[i].id);
}

namespace {

// decoders/strip.rs: up to `start` copies of `c` off the front, up to `stop` off the back.
std::string strip(const std::string& t, const std::string& c, std::uint64_t start,
                  std::uint64_t stop) {
  std::size_t a = 0, b = t.size();
  for (std::uint64_t k = 0; k < start && t.compare(a, c.size(), c) == 0; ++k) a += c.size();
  for (std::uint64_t k = 0;
       k < stop && b - a >= c.size() && t.compare(b - c.size(), c.size(), c) == 0; ++k)
    b -= c.size();
  return t.substr(a, b - a);
}

}  // namespace

// decoders/{bpe,byte_fallback,fuse,strip,sequence}.rs, pre_tokenizers/{byte_level,metaspace}.rs
// (their Decoder impls), normalizers/replace.rs (Replace as a decoder).
std::vector<std::string> HfTokenizer::Impl::decode_chain(std::vector<std::string> tokens) const {
  for (const auto& st : decoder) {
    std::vector<std::string> next;
    switch (st.kind) {
      case DecStep::Kind::replace:
        for (auto& t : tokens) next.push_back(replace_all(t, st.a, st.b));
        break;
      case DecStep::Kind::byte_fallback: {
        std::string bytes;
        auto flush = [&] {
          if (bytes.empty()) return;
          if (valid_utf8(bytes))
            next.push_back(bytes);
          else
            for (std::size_t i = 0; i < bytes.size(); ++i) next.push_back("\xEF\xBF\xBD");
          bytes.clear();
        };
        for (auto& t : tokens) {
          unsigned v = 0;
          const bool is_byte = t.size() == 6 && starts_with(t, "<0x") && t[5] == '>' &&
                               std::isxdigit(static_cast<unsigned char>(t[3])) &&
                               std::isxdigit(static_cast<unsigned char>(t[4])) &&
                               std::sscanf(t.c_str() + 3, "%2x", &v) == 1;
          if (is_byte) {
            bytes += static_cast<char>(v);
          } else {
            flush();
            next.push_back(std::move(t));
          }
        }
        flush();
        break;
      }
      case DecStep::Kind::fuse: {
        std::string all;
        for (auto& t : tokens) all += t;
        next.push_back(std::move(all));
        break;
      }
      case DecStep::Kind::strip:
        for (auto& t : tokens) next.push_back(strip(t, st.a, st.start, st.stop));
        break;
      case DecStep::Kind::byte_level: {
        std::string bytes;
        for (auto& t : tokens) {
          // A token with a character outside the map keeps its own bytes (byte_level.rs).
          std::string mine;
          bool all = true;
          for (std::size_t i = 0; i < t.size() && all;) {
            char32_t cp;
            const std::size_t n = char_len(t, i, &cp);
            auto it = byte_map().to_byte.find(cp);
            if (it == byte_map().to_byte.end())
              all = false;
            else
              mine += static_cast<char>(it->second);
            i += n;
          }
          bytes += all ? mine : t;
        }
        next.push_back(utf8_lossy(bytes));
        break;
      }
      case DecStep::Kind::metaspace:
        for (std::size_t i = 0; i < tokens.size(); ++i)
          next.push_back(
              replace_all(tokens[i], st.a, i == 0 && st.prepend != Prepend::never ? "" : " "));
        break;
    }
    tokens = std::move(next);
  }
  return tokens;
}

// ------------------------------------------------------------------ loading

namespace {

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 60)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + (s.size() > 60 ? "...\"" : "\"");
}

std::string read_small_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(path, "", "cannot read: no such file");
  if (!S_ISREG(st.st_mode)) throw Error(path, "", "cannot read: not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxFileBytes)
    throw Error(path, "",
                "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                    std::to_string(kMaxFileBytes));
  std::ifstream is(path, std::ios::binary);
  if (!is) throw Error(path, "", "cannot open");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  is.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (static_cast<std::size_t>(is.gcount()) != text.size()) throw Error(path, "", "short read");
  return text;
}

json parse_file(const std::string& path) {
  const std::string text = read_small_file(path);
  std::uint64_t values = 0;
  const json::parser_callback_t limit = [&](int depth, json::parse_event_t ev, json&) {
    if (depth > kMaxJsonDepth)
      throw Error(path, "", "JSON nested deeper than " + std::to_string(kMaxJsonDepth));
    if (ev == json::parse_event_t::value || ev == json::parse_event_t::object_start ||
        ev == json::parse_event_t::array_start)
      if (++values > kMaxJsonValues)
        throw Error(path, "", "more than " + std::to_string(kMaxJsonValues) + " JSON values");
    return true;
  };
  try {
    return json::parse(text, limit);
  } catch (const json::exception& e) {
    throw Error(path, "", std::string("invalid JSON: ") + e.what());
  }
}

// Reads fields of one file; every error names the file and the JSON pointer.
struct Fields {
  std::string file;

  [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const {
    throw Error(file, ptr, msg);
  }
  const json* opt(const json& o, const std::string& ptr, const char* key) const {
    if (!o.is_object()) fail(ptr, "must be an object");
    auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  const json& need(const json& o, const std::string& ptr, const char* key) const {
    const json* v = opt(o, ptr, key);
    if (!v) fail(ptr + "/" + key, "missing");
    return *v;
  }
  std::string str(const json& v, const std::string& ptr) const {
    if (!v.is_string()) fail(ptr, "must be a string");
    return v.get<std::string>();
  }
  bool boolean(const json& o, const std::string& ptr, const char* key, bool dflt) const {
    const json* v = opt(o, ptr, key);
    if (!v) return dflt;
    if (!v->is_boolean()) fail(ptr + "/" + key, "must be true or false");
    return v->get<bool>();
  }
  std::uint64_t uint(const json& v, const std::string& ptr, std::uint64_t max) const {
    if (!v.is_number_integer() ||
        (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
      fail(ptr, "must be a whole number from 0 to " + std::to_string(max));
    const auto n = v.get<std::uint64_t>();
    if (n > max) fail(ptr, "must be at most " + std::to_string(max) + ", got " + std::to_string(n));
    return n;
  }
  std::string type(const json& o, const std::string& ptr) const {
    return str(need(o, ptr, "type"), ptr + "/type");
  }
  [[noreturn]] void unsupported(const std::string& ptr, const std::string& what,
                                const std::string& supported) const {
    fail(ptr, what + " is not supported (supported: " + supported + ")");
  }
  // {"String": s} of Replace and Split; a {"Regex": ...} pattern is refused here.
  std::string string_pattern(const json& o, const std::string& ptr) const {
    const json& p = need(o, ptr, "pattern");
    const std::string pp = ptr + "/pattern";
    if (const json* s = opt(p, pp, "String")) return str(*s, pp + "/String");
    fail(pp, "only a {\"String\": ...} pattern is supported here");
  }
  Prepend prepend_scheme(const json& o, const std::string& ptr) const {
    Prepend scheme = Prepend::always;
    if (const json* v = opt(o, ptr, "prepend_scheme")) {
      const std::string s = str(*v, ptr + "/prepend_scheme");
      if (s == "always")
        scheme = Prepend::always;
      else if (s == "first")
        scheme = Prepend::first;
      else if (s == "never")
        scheme = Prepend::never;
      else
        fail(ptr + "/prepend_scheme", "must be always, first or never, got " + quote(s));
    }
    if (!boolean(o, ptr, "add_prefix_space", true)) scheme = Prepend::never;  // the old key
    return scheme;
  }
  std::string one_char(const json& v, const std::string& ptr) const {
    const std::string s = str(v, ptr);
    char32_t cp;
    if (s.empty() || utf8_valid_len(s, 0, &cp) != s.size()) fail(ptr, "must be one character");
    return s;
  }
};

// The three regexes of SplitRegex, as tokenizer.json files spell them.
std::optional<SplitRegex> known_regex(const std::string& r) {
  const std::string contractions = "'s|'t|'re|'ve|'m|'ll|'d";
  const std::string tail = R"( ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  if (r == contractions + R"(| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)")
    return SplitRegex::gpt2;
  const std::string head = "(?i:" + contractions + R"()|[^\r\n\p{L}\p{N}]?\p{L}+|)";
  if (r == head + R"(\p{N}{1,3}|)" + tail) return SplitRegex::llama3;
  if (r == head + R"(\p{N}|)" + tail) return SplitRegex::qwen2;
  return std::nullopt;
}

void parse_normalizer(const Fields& f, const json& j, const std::string& ptr,
                      std::vector<NormStep>& out) {
  if (j.is_null()) return;
  const std::string t = f.type(j, ptr);
  if (t == "Sequence") {
    const json& list = f.need(j, ptr, "normalizers");
    if (!list.is_array()) f.fail(ptr + "/normalizers", "must be an array");
    for (std::size_t i = 0; i < list.size(); ++i)
      parse_normalizer(f, list[i], ptr + "/normalizers/" + std::to_string(i), out);
  } else if (t == "Prepend") {
    out.push_back(
        {NormStep::Kind::prepend, f.str(f.need(j, ptr, "prepend"), ptr + "/prepend"), ""});
  } else if (t == "Replace") {
    out.push_back({NormStep::Kind::replace, f.string_pattern(j, ptr),
                   f.str(f.need(j, ptr, "content"), ptr + "/content")});
  } else if (t == "NFC") {
    out.push_back({NormStep::Kind::nfc, ptr, ""});
  } else {
    f.unsupported(ptr + "/type", "normalizer " + quote(t),
                  "Sequence, Prepend, Replace, NFC (of text it leaves unchanged)");
  }
}

void parse_pre(const Fields& f, const json& j, const std::string& ptr, std::vector<PreStep>& out) {
  if (j.is_null()) return;
  const std::string t = f.type(j, ptr);
  PreStep st{};
  if (t == "Sequence") {
    const json& list = f.need(j, ptr, "pretokenizers");
    if (!list.is_array()) f.fail(ptr + "/pretokenizers", "must be an array");
    for (std::size_t i = 0; i < list.size(); ++i)
      parse_pre(f, list[i], ptr + "/pretokenizers/" + std::to_string(i), out);
    return;
  } else if (t == "ByteLevel") {
    st.kind = PreStep::Kind::byte_level;
    st.add_prefix_space = f.boolean(j, ptr, "add_prefix_space", true);
    st.use_regex = f.boolean(j, ptr, "use_regex", true);
  } else if (t == "Split") {
    st.kind = PreStep::Kind::split;
    const json& p = f.need(j, ptr, "pattern");
    const json* r = f.opt(p, ptr + "/pattern", "Regex");
    if (!r) f.fail(ptr + "/pattern", "only a {\"Regex\": ...} split is supported");
    const std::string re = f.str(*r, ptr + "/pattern/Regex");
    const auto known = known_regex(re);
    if (!known)
      f.unsupported(ptr + "/pattern/Regex", "the regex " + quote(re),
                    "the split regexes of GPT-2, Llama 3 and Qwen2");
    st.re = *known;
    const std::string behavior = f.str(f.need(j, ptr, "behavior"), ptr + "/behavior");
    if (behavior != "Isolated")
      f.unsupported(ptr + "/behavior", "behavior " + quote(behavior), "Isolated");
    if (f.boolean(j, ptr, "invert", false)) f.unsupported(ptr + "/invert", "true", "false");
  } else if (t == "Metaspace") {
    st.kind = PreStep::Kind::metaspace;
    st.replacement = f.one_char(f.need(j, ptr, "replacement"), ptr + "/replacement");
    st.prepend = f.prepend_scheme(j, ptr);
    st.split = f.boolean(j, ptr, "split", true);
  } else {
    f.unsupported(ptr + "/type", "pre_tokenizer " + quote(t),
                  "Sequence, ByteLevel, Split, Metaspace");
  }
  out.push_back(std::move(st));
}

void parse_decoder(const Fields& f, const json& j, const std::string& ptr,
                   std::vector<DecStep>& out) {
  if (j.is_null()) return;
  const std::string t = f.type(j, ptr);
  DecStep st{};
  if (t == "Sequence") {
    const json& list = f.need(j, ptr, "decoders");
    if (!list.is_array()) f.fail(ptr + "/decoders", "must be an array");
    for (std::size_t i = 0; i < list.size(); ++i)
      parse_decoder(f, list[i], ptr + "/decoders/" + std::to_string(i), out);
    return;
  } else if (t == "Replace") {
    st.kind = DecStep::Kind::replace;
    st.a = f.string_pattern(j, ptr);
    st.b = f.str(f.need(j, ptr, "content"), ptr + "/content");
  } else if (t == "ByteFallback") {
    st.kind = DecStep::Kind::byte_fallback;
  } else if (t == "Fuse") {
    st.kind = DecStep::Kind::fuse;
  } else if (t == "Strip") {
    st.kind = DecStep::Kind::strip;
    st.a = f.one_char(f.need(j, ptr, "content"), ptr + "/content");
    st.start = f.uint(f.need(j, ptr, "start"), ptr + "/start", 1u << 20);
    st.stop = f.uint(f.need(j, ptr, "stop"), ptr + "/stop", 1u << 20);
  } else if (t == "ByteLevel") {
    st.kind = DecStep::Kind::byte_level;
  } else if (t == "Metaspace") {
    st.kind = DecStep::Kind::metaspace;
    st.a = f.one_char(f.need(j, ptr, "replacement"), ptr + "/replacement");
    st.prepend = f.prepend_scheme(j, ptr);
  } else {
    f.unsupported(ptr + "/type", "decoder " + quote(t),
                  "Sequence, Replace, ByteFallback, Fuse, Strip, ByteLevel, Metaspace");
  }
  out.push_back(std::move(st));
}

// BOS / EOS of the post_processor: TemplateProcessing's single template (the special tokens
// before and after the sequence $A), RobertaProcessing / BertProcessing's cls and sep.
void parse_post(const Fields& f, const json& j, const std::string& ptr, std::int32_t& bos,
                std::int32_t& eos) {
  if (j.is_null()) return;
  const std::string t = f.type(j, ptr);
  if (t == "Sequence") {
    const json& list = f.need(j, ptr, "processors");
    if (!list.is_array()) f.fail(ptr + "/processors", "must be an array");
    for (std::size_t i = 0; i < list.size(); ++i)
      parse_post(f, list[i], ptr + "/processors/" + std::to_string(i), bos, eos);
  } else if (t == "TemplateProcessing") {
    const json& single = f.need(j, ptr, "single");
    const json& specials = f.need(j, ptr, "special_tokens");
    if (!single.is_array()) f.fail(ptr + "/single", "must be an array");
    bool seen_seq = false;
    for (std::size_t i = 0; i < single.size(); ++i) {
      const std::string p = ptr + "/single/" + std::to_string(i);
      if (f.opt(single[i], p, "Sequence")) {
        seen_seq = true;
        continue;
      }
      const json& sp = f.need(single[i], p, "SpecialToken");
      const std::string name = f.str(f.need(sp, p + "/SpecialToken", "id"), p + "/SpecialToken/id");
      const std::string sptr = ptr + "/special_tokens/" + escape_pointer(name);
      const json& entry = f.need(specials, ptr + "/special_tokens", name.c_str());
      const json& ids = f.need(entry, sptr, "ids");
      if (!ids.is_array() || ids.size() != 1) f.fail(sptr + "/ids", "must hold exactly one id");
      const auto id = static_cast<std::int32_t>(f.uint(ids[0], sptr + "/ids/0", kMaxTokenId));
      (seen_seq ? eos : bos) = id;
      if (seen_seq) break;
    }
  } else if (t == "RobertaProcessing" || t == "BertProcessing") {
    for (const char* key : {"cls", "sep"}) {
      const json& pair = f.need(j, ptr, key);
      const std::string p = ptr + "/" + key;
      if (!pair.is_array() || pair.size() != 2) f.fail(p, "must be [token, id]");
      (key[0] == 'c' ? bos : eos) =
          static_cast<std::int32_t>(f.uint(pair[1], p + "/1", kMaxTokenId));
    }
  } else if (t != "ByteLevel") {
    f.unsupported(ptr + "/type", "post_processor " + quote(t),
                  "Sequence, TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel");
  }
}

}  // namespace

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;
HfTokenizer::~HfTokenizer() = default;

namespace {

void parse_model(const Fields& f, const json& root, HfTokenizer::Impl& t,
                 std::vector<std::pair<std::string, std::int32_t>>& ids) {
  const json& m = f.need(root, "", "model");
  const json* type = f.opt(m, "/model", "type");
  if (!type) f.fail("/model/type", "missing (only \"BPE\" models are supported)");
  const std::string ty = f.str(*type, "/model/type");
  if (ty != "BPE") f.unsupported("/model/type", "model " + quote(ty), "BPE");
  if (const json* d = f.opt(m, "/model", "dropout"))
    if (!d->is_number() || d->get<double>() != 0.0)
      f.unsupported("/model/dropout", "BPE dropout", "null");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const json* v = f.opt(m, "/model", key))
      if (!f.str(*v, std::string("/model/") + key).empty())
        f.unsupported(std::string("/model/") + key, "a non-empty affix", "null");
  t.byte_fallback = f.boolean(m, "/model", "byte_fallback", false);
  t.fuse_unk = f.boolean(m, "/model", "fuse_unk", false);
  t.ignore_merges = f.boolean(m, "/model", "ignore_merges", false);

  const json& vocab = f.need(m, "/model", "vocab");
  if (!vocab.is_object()) f.fail("/model/vocab", "must be an object of token: id");
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const auto id = static_cast<std::int32_t>(
        f.uint(it.value(), "/model/vocab/" + escape_pointer(it.key()), kMaxTokenId));
    t.vocab.emplace(it.key(), id);
    ids.emplace_back(it.key(), id);
  }
  if (const json* u = f.opt(m, "/model", "unk_token")) {
    const std::string s = f.str(*u, "/model/unk_token");
    auto it = t.vocab.find(s);
    if (it == t.vocab.end()) f.fail("/model/unk_token", quote(s) + " is not in the vocabulary");
    t.unk = it->second;
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    auto it = t.vocab.find(name);
    t.byte_ids[b] = it == t.vocab.end() ? -1 : it->second;
  }

  // models/bpe/model.rs, convert_merges_to_hashmap and the builder: "a b" strings (exactly one
  // space) or [a, b] pairs; a, b and a + b must all be tokens; the rank is the position, and a
  // repeated pair keeps its last rank (a map insert, as the library's collect).
  const json& merges = f.need(m, "/model", "merges");
  if (!merges.is_array()) f.fail("/model/merges", "must be an array");
  auto token_id = [&](const std::string& s, const std::string& ptr) {
    auto it = t.vocab.find(s);
    if (it == t.vocab.end()) f.fail(ptr, "token " + quote(s) + " is not in the vocabulary");
    return it->second;
  };
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const std::string ptr = "/model/merges/" + std::to_string(i);
    const json& e = merges[i];
    std::string a, b;
    if (e.is_string()) {
      const std::string s = e.get<std::string>();
      const std::size_t sp = s.find(' ');
      if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
        f.fail(ptr, "must be two tokens separated by one space, got " + quote(s));
      a = s.substr(0, sp), b = s.substr(sp + 1);
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      a = e[0].get<std::string>(), b = e[1].get<std::string>();
    } else {
      f.fail(ptr, "must be \"a b\" or [\"a\", \"b\"]");
    }
    const std::int32_t ia = token_id(a, ptr), ib = token_id(b, ptr), im = token_id(a + b, ptr);
    t.merges.insert_or_assign(pair_key(ia, ib),
                              HfTokenizer::Impl::Merge{static_cast<std::uint32_t>(i), im});
  }
}

void parse_added(const Fields& f, const json& root, HfTokenizer::Impl& t,
                 std::vector<std::pair<std::string, std::int32_t>>& ids) {
  const json* list = f.opt(root, "", "added_tokens");
  if (!list) return;
  if (!list->is_array()) f.fail("/added_tokens", "must be an array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string ptr = "/added_tokens/" + std::to_string(i);
    const json& e = (*list)[i];
    AddedToken a;
    a.id = static_cast<std::int32_t>(f.uint(f.need(e, ptr, "id"), ptr + "/id", kMaxTokenId));
    a.content = f.str(f.need(e, ptr, "content"), ptr + "/content");
    if (a.content.empty()) f.fail(ptr + "/content", "must not be empty");
    a.special = f.boolean(e, ptr, "special", false);
    a.normalized = f.boolean(e, ptr, "normalized", !a.special);
    a.lstrip = f.boolean(e, ptr, "lstrip", false);
    a.rstrip = f.boolean(e, ptr, "rstrip", false);
    a.single_word = f.boolean(e, ptr, "single_word", false);
    ids.emplace_back(a.content, a.id);
    t.added.push_back(std::move(a));
  }
}

// tokenizer_config.json's bos_token / eos_token: a string, {"content": ...} or null.
void parse_config(const std::string& path, HfTokenizer::Impl& t) {
  const json root = parse_file(path);
  const Fields f{path};
  if (!root.is_object()) f.fail("", "must be a JSON object");
  for (const char* key : {"bos_token", "eos_token"}) {
    const json* v = f.opt(root, "", key);
    if (!v) continue;
    const std::string ptr = std::string("/") + key;
    const std::string s =
        v->is_object() ? f.str(f.need(*v, ptr, "content"), ptr + "/content") : f.str(*v, ptr);
    std::int32_t id = -1;
    for (const auto& a : t.added)
      if (a.content == s) id = a.id;
    if (id < 0) {
      auto it = t.vocab.find(s);
      if (it == t.vocab.end())
        f.fail(ptr, quote(s) + " is neither an added token nor in the vocabulary");
      id = it->second;
    }
    (key[0] == 'b' ? t.bos : t.eos) = id;
  }
}

}  // namespace

HfTokenizer HfTokenizer::load(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) file = (fs::path(path) / "tokenizer.json").string();
  auto t = std::make_unique<Impl>();
  t->path = file;
  const json root = parse_file(file);
  const Fields f{file};
  if (!root.is_object()) f.fail("", "must be a JSON object");

  std::vector<std::pair<std::string, std::int32_t>> ids;  // every (token, id), vocab and added
  parse_model(f, root, *t, ids);
  parse_added(f, root, *t, ids);
  parse_normalizer(f, root.value("normalizer", json()), "/normalizer", t->normalizer);
  parse_pre(f, root.value("pre_tokenizer", json()), "/pre_tokenizer", t->pre);
  const json dec = root.value("decoder", json());
  t->has_decoder = !dec.is_null();
  parse_decoder(f, dec, "/decoder", t->decoder);
  parse_post(f, root.value("post_processor", json()), "/post_processor", t->bos, t->eos);

  std::int32_t max_id = -1;
  for (const auto& [s, id] : ids) max_id = std::max(max_id, id);
  const auto n = static_cast<std::size_t>(max_id + 1);
  t->pieces.assign(n, "");
  t->held.assign(n, 0);
  t->special.assign(n, 0);
  // Two vocab tokens on one id would make decoding ambiguous; an added token may take over an id
  // of the vocab (added_vocabulary.rs: simple_id_to_token is asked first).
  const std::size_t n_vocab = t->vocab.size();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& [s, id] = ids[i];
    if (i < n_vocab && t->held[id])
      f.fail("/model/vocab/" + escape_pointer(s),
             "id " + std::to_string(id) + " is also the id of " + quote(t->pieces[id]));
    t->pieces[id] = s;
    t->held[id] = 1;
  }
  for (auto& a : t->added) {
    if (a.special) t->special[a.id] = 1;
    a.pattern = a.normalized ? t->normalize(a.content) : a.content;
  }
  for (std::int32_t* id : {&t->bos, &t->eos})
    if (*id >= 0 && (static_cast<std::size_t>(*id) >= n || !t->held[*id]))
      f.fail("/post_processor", "token id " + std::to_string(*id) + " is not in the vocabulary");

  const fs::path config = fs::path(file).parent_path() / "tokenizer_config.json";
  if (fs::exists(config, ec)) parse_config(config.string(), *t);
  if (t->eos < 0)
    for (const char* name : {"</s>", "<|endoftext|>", "<|end_of_text|>"})
      for (const auto& a : t->added)
        if (a.special && a.content == name && t->eos < 0) t->eos = a.id;
  return HfTokenizer(std::move(t));
}

std::uint32_t HfTokenizer::size() const { return static_cast<std::uint32_t>(impl_->pieces.size()); }
std::int32_t HfTokenizer::bos_id() const { return impl_->bos; }
std::int32_t HfTokenizer::eos_id() const { return impl_->eos; }

const std::string& HfTokenizer::piece(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= impl_->pieces.size() || !impl_->held[id])
    throw Error(impl_->path, "", "token id " + std::to_string(id) + " is not in the vocabulary");
  return impl_->pieces[id];
}

// tokenizer/mod.rs, encode: added tokens out of the raw text, normalization of the rest, added
// tokens out of the normalized text, pre-tokenization, the model on each word (words repeat in
// real text, so each distinct word is merged once per call).
std::vector<std::int32_t> HfTokenizer::encode(const std::string& text, bool bos, bool eos) const {
  const Impl& t = *impl_;
  std::vector<std::int32_t> out;
  if (bos && t.bos >= 0) out.push_back(t.bos);
  std::vector<Piece> pieces = t.split_added({Piece{text, -1, true}}, false);
  for (auto& p : pieces)
    if (p.added < 0) p.text = t.normalize(std::move(p.text));
  pieces = t.split_added(std::move(pieces), true);
  std::unordered_map<std::string, std::vector<std::int32_t>> cache;
  for (const auto& p : pieces) {
    if (p.added >= 0) {
      out.push_back(p.added);
      continue;
    }
    for (const auto& w : t.pre_tokenize(p)) {
      auto it = cache.find(w);
      if (it == cache.end()) {
        std::vector<std::int32_t> ids;
        t.bpe(w, ids);
        it = cache.emplace(w, std::move(ids)).first;
      }
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  if (eos && t.eos >= 0) out.push_back(t.eos);
  return out;
}

std::string HfTokenizer::decode(std::int32_t prev, std::int32_t token) const {
  const Impl& t = *impl_;
  std::string s = piece(token);
  if (t.special[token]) return "";
  const bool first = prev < 0 || prev == t.bos;
  if (!t.has_decoder) return first ? s : " " + s;  // tokenizer/mod.rs: tokens joined by " "
  // The chain on this one token, except what needs its neighbours: a byte token gives its raw
  // byte and a byte-level token its raw bytes (detokenize checks UTF-8 over the whole text), and
  // steps after a Fuse, or a Metaspace's first-token rule, act only at the start of the text.
  bool fused = false;
  for (const auto& st : t.decoder) {
    switch (st.kind) {
      case DecStep::Kind::byte_fallback: {
        unsigned v = 0;
        if (s.size() == 6 && starts_with(s, "<0x") && s[5] == '>' &&
            std::isxdigit(static_cast<unsigned char>(s[3])) &&
            std::isxdigit(static_cast<unsigned char>(s[4])) &&
            std::sscanf(s.c_str() + 3, "%2x", &v) == 1)
          s = std::string(1, static_cast<char>(v));
        break;
      }
      case DecStep::Kind::byte_level: {
        std::string bytes;
        for (std::size_t i = 0; i < s.size();) {
          char32_t cp;
          const std::size_t n = char_len(s, i, &cp);
          auto it = byte_map().to_byte.find(cp);
          if (it == byte_map().to_byte.end()) {
            bytes = s;
            break;
          }
          bytes += static_cast<char>(it->second);
          i += n;
        }
        s = bytes;
        fused = true;
        break;
      }
      case DecStep::Kind::fuse:
        fused = true;
        break;
      case DecStep::Kind::strip:
        // After a Fuse the strip acts on the whole text: its start only, the end is not known yet.
        if (!fused)
          s = strip(s, st.a, st.start, st.stop);
        else if (first)
          s = strip(s, st.a, st.start, 0);
        break;
      case DecStep::Kind::metaspace:
        s = replace_all(s, st.a, first && st.prepend != Prepend::never ? "" : " ");
        break;
      case DecStep::Kind::replace:
        s = replace_all(s, st.a, st.b);
        break;
    }
  }
  return s;
}

std::string HfTokenizer::detokenize(std::span<const std::int32_t> tokens) const {
  const Impl& t = *impl_;
  std::vector<std::string> strs;
  for (auto id : tokens) {
    const std::string& p = piece(id);
    if (!t.special[id]) strs.push_back(p);
  }
  std::string out;
  if (!t.has_decoder) {
    for (std::size_t i = 0; i < strs.size(); ++i) out += (i ? " " : "") + strs[i];
    return out;
  }
  for (auto& s : t.decode_chain(std::move(strs))) out += s;
  return out;
}

}  // namespace kvplan::sim
