/* Smooth L1 / Huber loss for a regression head's evaluation script, averaged over each sample's outputs. */
#include <math.h>

static double huber(double r, double delta)
{
    double a = fabs(r);
    return a <= delta ? 0.5 * r * r : delta * a - 0.5 * delta * delta;
}

void per_sample_huber(const float *y_hat, const float *y, float *loss, int samples, int outputs, float delta)
{
    for (int s = 0; s < samples; s++) {
        double total = 0.0;
        for (int o = 0; o < outputs; o++)
            total += huber((double)y_hat[s * outputs + o] - y[s * outputs + o], delta);
        loss[s] = (float)(total / outputs);
    }
}
