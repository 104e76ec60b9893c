// The start-up floor of any program that links Debian's LibTorch: load it (about 290 shared libraries and the
// registration of every operator) and run one tiny op. trainyard-bench times it next to `trainyard-cli
// validate`, so that the CLI's own start-up cost is what is left.

#include <torch/torch.h>

int main()
{
    return torch::ones({1}).item<float>() > 2.0F ? 1 : 0;
}
