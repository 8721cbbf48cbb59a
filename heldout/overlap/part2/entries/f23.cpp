// Adam / AdamW / AMSGrad for host-side parameter servers.
//
// Uses the "efficient" formulation from section 2 of Kingma & Ba: instead of
// materialising m_hat and v_hat it folds both bias corrections into a single
// scalar step size and an eps rescale, which saves two divides per element.
#include <cmath>
#include <cstddef>
#include <span>

namespace optim {

struct AdamOptions {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 0.0;
    bool decoupled = true;   // AdamW
    bool amsgrad = false;
};

template <typename T>
class Adam {
public:
    explicit Adam(AdamOptions o) : o_(o) {}

    void step(std::span<T> w, std::span<const T> g, std::span<T> m, std::span<T> v,
              std::span<T> vmax = {})
    {
        ++t_;
        const double c1 = 1.0 - std::pow(o_.beta1, double(t_));
        const double c2 = 1.0 - std::pow(o_.beta2, double(t_));
        const T alpha = T(o_.lr * std::sqrt(c2) / c1);
        const T eps_hat = T(o_.eps * std::sqrt(c2));
        const T b1 = T(o_.beta1), b2 = T(o_.beta2);
        const T shrink = o_.decoupled ? T(1.0 - o_.lr * o_.weight_decay) : T(1);
        const T l2 = o_.decoupled ? T(0) : T(o_.weight_decay);

        const std::size_t n = w.size();
        for (std::size_t i = 0; i < n; ++i) {
            const T gi = g[i] + l2 * w[i];
            m[i] = std::fma(b1, m[i] - gi, gi);            // b1*m + (1-b1)*g
            v[i] = std::fma(b2, v[i] - gi * gi, gi * gi);
            T vv = v[i];
            if (o_.amsgrad) {
                vmax[i] = vv > vmax[i] ? vv : vmax[i];
                vv = vmax[i];
            }
            w[i] = w[i] * shrink - alpha * m[i] / (std::sqrt(vv) + eps_hat);
        }
    }

    long steps() const { return t_; }

private:
    AdamOptions o_;
    long t_ = 0;
};

template class Adam<float>;
template class Adam<double>;

}  // namespace optim
