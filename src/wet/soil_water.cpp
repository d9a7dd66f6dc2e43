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
  driest_theta_ = porosity_ * (residual_ + (1 - residual_) * kDriestEffectiveSaturation);
  driest_capacity_ = curve_capacity(driest_head_);
  dry_head_ = driest_head_ - driest_theta_ / driest_capacity_;
  // On the tangent K grows linearly from 0 at dry_head_: int K dh is a triangle.
  const double below = 0.5 * conductivity(driest_head_) * (driest_head_ - dry_head_);
  kirchhoff_table_.resize(kKirchhoffPoints);
  kirchhoff_table_[0] = below;
  const double step = -driest_head_ / (kKirchhoffPoints - 1);
  for (int i = 1; i < kKirchhoffPoints; ++i) {
    const double a = driest_head_ + (i - 1) * step;
    kirchhoff_table_[i] =
        kirchhoff_table_[i - 1] + step / 6 *
                                      (conductivity(a) + 4 * conductivity(a + 0.5 * step) +
                                       conductivity(std::min(0.0, a + step)));
  }
}

double SoilWater::kirchhoff(double head) const {
  if (head >= 0) return kirchhoff_table_.back() + k_s_ * head;
  if (head <= dry_head_) return 0.0;
  if (head < driest_head_) {
    const double k = conductivity(head);
    return 0.5 * k * (head - dry_head_);
  }
  const double x = (head - driest_head_) / -driest_head_ * (kKirchhoffPoints - 1);
  const int i = std::min(int(x), kKirchhoffPoints - 2);
  const double f = x - i;
  return kirchhoff_table_[i] + f * (kirchhoff_table_[i + 1] - kirchhoff_table_[i]);
}

double SoilWater::mean_conductivity(double head_a, double head_b) const {
  const double dh = head_b - head_a;
  // Closer than the table's resolution: the conductivity at the midpoint.
  if (std::abs(dh) < 1e-6) return conductivity(0.5 * (head_a + head_b));
  return (kirchhoff(head_b) - kirchhoff(head_a)) / dh;
}

double SoilWater::curve_capacity(double head) const {
  const double x = std::pow(alpha_ * -head, n_);
  // d S_e / d h = m n alpha^n |h|^(n-1) (1 + x)^(-m-1), written with x = (alpha |h|)^n.
  return porosity_ * (1 - residual_) * m_ * n_ * x / -head * std::pow(1 + x, -m_ - 1);
}

double SoilWater::effective_saturation(double head) const {
  if (head >= 0) return 1.0;
  return std::pow(1 + std::pow(alpha_ * -head, n_), -m_);
}

double SoilWater::water_content(double head) const {
  if (head >= 0) return porosity_ + storage_ * head;
  if (head < driest_head_) return driest_theta_ + driest_capacity_ * (head - driest_head_);
  return porosity_ * (residual_ + (1 - residual_) * effective_saturation(head));
}

double SoilWater::capacity(double head) const {
  if (head >= 0) return storage_;
  return std::max(storage_, curve_capacity(std::max(head, driest_head_)));
}

double SoilWater::head(double theta) const {
  if (theta >= porosity_) return storage_ > 0 ? (theta - porosity_) / storage_ : 0.0;
  if (theta <= driest_theta_) return driest_head_ + (theta - driest_theta_) / driest_capacity_;
  const double s_e = (theta / porosity_ - residual_) / (1 - residual_);
  if (s_e >= 1) return 0.0;
  return -std::pow(std::pow(s_e, -1 / m_) - 1, 1 / n_) / alpha_;
}

double SoilWater::conductivity(double head) const {
  // On the tangent, in proportion to the water left: an empty cell passes none.
  if (head < driest_head_)
    return conductivity(driest_head_) * std::max(0.0, water_content(head) / driest_theta_);
  const double s_e = effective_saturation(head);
  if (s_e >= 1) return k_s_;
  const double inner = 1 - std::pow(1 - std::pow(s_e, 1 / m_), m_);
  return k_s_ * std::sqrt(s_e) * inner * inner;
}

}  // namespace dunesim
