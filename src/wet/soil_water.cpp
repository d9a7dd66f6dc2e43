#include "src/wet/soil_water.hpp"

#include <algorithm>
#include <cmath>

namespace dunesim {

SoilWater::SoilWater(const WetSandSpec& sand)
    : porosity_(sand.porosity),
      residual_(sand.residual_saturation),
      alpha_(sand.van_genuchten_alpha),
      n_(sand.van_genuchten_n),
      m_(1 - 1 / sand.van_genuchten_n),
      storage_(sand.specific_storage),
      k_s_(sand.conductivity) {
  const double x = std::pow(kDriestEffectiveSaturation, -1 / m_) - 1;
  driest_head_ = -std::pow(x, 1 / n_) / alpha_;
  driest_theta_ = curve_water_content(driest_head_);
  driest_capacity_ = curve_capacity(driest_head_);
  driest_conductivity_ = curve_conductivity(driest_head_);
  dry_head_ = driest_head_ - driest_theta_ / driest_capacity_;
  step_ = -driest_head_ / (kTablePoints - 1);
  table_.resize(kTablePoints);
  // On the tangent K grows linearly from 0 at dry_head_: int K dh is a triangle.
  double kirchhoff = 0.5 * driest_conductivity_ * (driest_head_ - dry_head_);
  for (int i = 0; i < kTablePoints; ++i) {
    const double h = std::min(0.0, driest_head_ + i * step_);
    if (i > 0)  // Simpson's rule over the interval below
      kirchhoff += step_ / 6 *
                   (curve_conductivity(h - step_) + 4 * curve_conductivity(h - 0.5 * step_) +
                    curve_conductivity(h));
    table_[i] = {curve_water_content(h), curve_capacity(h), curve_conductivity(h), kirchhoff};
  }
}

// The analytic curve, h in [driest_head_, 0]: only the constructor evaluates it.
double SoilWater::curve_effective_saturation(double head) const {
  return std::pow(1 + std::pow(alpha_ * -head, n_), -m_);
}

double SoilWater::curve_water_content(double head) const {
  return porosity_ * (residual_ + (1 - residual_) * curve_effective_saturation(head));
}

double SoilWater::curve_capacity(double head) const {
  if (head >= 0) return 0.0;
  const double x = std::pow(alpha_ * -head, n_);
  // d S_e / d h = m n alpha^n |h|^(n-1) (1 + x)^(-m-1), written with x = (alpha |h|)^n.
  return porosity_ * (1 - residual_) * m_ * n_ * x / -head * std::pow(1 + x, -m_ - 1);
}

double SoilWater::curve_conductivity(double head) const {
  const double s_e = curve_effective_saturation(head);
  const double inner = 1 - std::pow(1 - std::pow(s_e, 1 / m_), m_);
  return k_s_ * std::sqrt(s_e) * inner * inner;
}

// The table's entry at or below `head` (in [driest_head_, 0)) and the fraction beyond it.
SoilWater::Lookup SoilWater::lookup(double head) const {
  const double x = (head - driest_head_) / step_;
  const int i = std::clamp(int(x), 0, kTablePoints - 2);
  return {table_[i], table_[i + 1], x - i};
}

double SoilWater::kirchhoff(double head) const {
  if (head >= 0) return table_.back().kirchhoff + k_s_ * head;
  if (head <= dry_head_) return 0.0;
  if (head < driest_head_) return 0.5 * conductivity(head) * (head - dry_head_);
  const Lookup l = lookup(head);
  return l.at(&Node::kirchhoff);
}

double SoilWater::mean_conductivity(double head_a, double head_b) const {
  const double dh = head_b - head_a;
  // Closer than the table's resolution: the conductivity at the midpoint.
  if (std::abs(dh) < 1e-6) return conductivity(0.5 * (head_a + head_b));
  return (kirchhoff(head_b) - kirchhoff(head_a)) / dh;
}

double SoilWater::water_content(double head) const {
  if (head >= 0) return porosity_ + storage_ * head;
  if (head < driest_head_) return driest_theta_ + driest_capacity_ * (head - driest_head_);
  return lookup(head).at(&Node::theta);
}

double SoilWater::capacity(double head) const {
  if (head >= 0) return storage_;
  if (head < driest_head_) return std::max(storage_, driest_capacity_);
  return std::max(storage_, lookup(head).at(&Node::capacity));
}

double SoilWater::head(double theta) const {
  if (theta >= porosity_) return storage_ > 0 ? (theta - porosity_) / storage_ : 0.0;
  if (theta <= driest_theta_) return driest_head_ + (theta - driest_theta_) / driest_capacity_;
  // The inverse of water_content's straight pieces: theta grows with the head.
  const auto above = std::upper_bound(table_.begin(), table_.end(), theta,
                                      [](double t, const Node& n) { return t < n.theta; });
  const int i = std::clamp(int(above - table_.begin()) - 1, 0, kTablePoints - 2);
  const double f = (theta - table_[i].theta) / (table_[i + 1].theta - table_[i].theta);
  return std::min(0.0, driest_head_ + (i + f) * step_);
}

double SoilWater::conductivity(double head) const {
  if (head >= 0) return k_s_;
  // On the tangent, in proportion to the water left: an empty cell passes none.
  if (head < driest_head_)
    return driest_conductivity_ * std::max(0.0, water_content(head) / driest_theta_);
  return lookup(head).at(&Node::conductivity);
}

}  // namespace dunesim
