// The description records of ns3_crosscheck.cc: one line's kind and key=value pairs, read with
// range checks, and the refusal that names the field of a malformed one (status 2).
#pragma once

#include "ns3/core-module.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace cclab
{

[[noreturn]] inline void
Refuse(int line, const std::string& field, const std::string& value, const std::string& accepted)
{
    std::cerr << "ns3-crosscheck: line " << line << ": " << field << " = " << value
              << "; accepted: " << accepted << std::endl;
    std::exit(2);
}

// One record: its kind, its key=value pairs, and its line (for errors).
struct Record
{
    std::string kind;
    std::map<std::string, std::string> kv;
    int line{0};

    const std::string& Str(const std::string& k) const
    {
        auto it = kv.find(k);
        if (it == kv.end())
        {
            Refuse(line, kind + "." + k, "(missing)", "a value");
        }
        return it->second;
    }

    double Num(const std::string& k, double lo, double hi) const
    {
        const std::string& s = Str(k);
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
        {
            std::ostringstream os;
            os << "a number from " << lo << " to " << hi;
            Refuse(line, kind + "." + k, s, os.str());
        }
        return v;
    }

    // The pairs whose key starts with `prefix` ("tcp."), the prefix removed.
    std::vector<std::pair<std::string, std::string>> With(const std::string& prefix) const
    {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& [k, v] : kv)
        {
            if (k.rfind(prefix, 0) == 0)
            {
                out.emplace_back(k.substr(prefix.size()), v);
            }
        }
        return out;
    }
};

inline void
SetAll(ns3::ObjectBase& obj,
       const std::vector<std::pair<std::string, std::string>>& attrs,
       const Record& r,
       const std::string& prefix)
{
    for (const auto& [name, value] : attrs)
    {
        if (!obj.SetAttributeFailSafe(name, ns3::StringValue(value)))
        {
            Refuse(r.line,
                   r.kind + "." + prefix + name,
                   value,
                   "an attribute of " + obj.GetInstanceTypeId().GetName() + " and a value it takes");
        }
    }
}

} // namespace cclab
