// replay_rules_plans OUT.json: the built-in rules' plan (sm90/choice.hpp, an H200's facts) for every record
// of test/replay/data/h200_recordings.json, in the dataset's order, for tools/tuning_recordings.py table /
// replay (docs/tuning.md, "The built-in H200 table"), and the replay's figures for the rules and the table.
#include <cstdio>
#include <exception>
#include <fstream>

#include "replay.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.json [DATASET.json]\n", argv[0]);
    return 2;
  }
  try {
    const auto records = bwgemm::replay::load_records(
        argc == 3 ? argv[2] : BWGEMM_SOURCE_DIR "/test/replay/data/h200_recordings.json");
    nlohmann::json plans = nlohmann::json::array();
    for (const auto& r : records) {
      const bwgemm::replay::Plan p = bwgemm::replay::rules_plan(r);
      plans.push_back({{"config", p.config}, {"split_k", p.split_k}, {"stream_k", p.stream_k}});
    }
    // The replay's figures as this program computes them (replay.hpp), for tools/tuning_recordings.py check
    // to compare with its own.
    std::vector<bwgemm::replay::Plan> rules, table;
    for (const auto& r : records) {
      rules.push_back(bwgemm::replay::rules_plan(r));
      table.push_back(bwgemm::replay::table_plan(r, rules.back()));
    }
    nlohmann::json figures;
    for (const auto& [name, chosen] : {std::pair{"rules", &rules}, std::pair{"table", &table}}) {
      const bwgemm::replay::Figures f = bwgemm::replay::evaluate(records, *chosen);
      figures[name] = {
          {"covered", f.covered}, {"geomean_loss", f.geomean_loss}, {"worst_beyond_noise", f.worst_beyond}};
    }
    std::ofstream out(argv[1]);
    out << nlohmann::json{{"plans", plans}, {"figures", figures}}.dump(0) << "\n";
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[1]);
    std::printf("%s: %zu plans\n", argv[1], records.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
