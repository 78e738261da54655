// The chain kernels of WP_GROUP_7 (kernels_chain.hpp): one file a group, so a
// build compiles the groups at once.
#include "kernels/warp_primitives/kernels_chain.hpp"

namespace warpcost::kernels {

WP_DEFINE_CHAIN_GROUP(7)

}  // namespace warpcost::kernels
