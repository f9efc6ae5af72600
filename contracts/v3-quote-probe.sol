// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IV3PoolSwap {
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256 amount0, int256 amount1);
}

/// Asks a V3 pool what a swap would pay without paying it: the swap callback reverts with
/// the deltas and the price the swap moved to, and `quote` returns them. Use with eth_call.
/// Lets tests and quoting code check their numbers against the pool's own math.
contract V3QuoteProbe {
    uint160 private constant MIN_SQRT_RATIO = 4295128739;
    uint160 private constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    function quote(address pool, bool zeroForOne, int256 amountSpecified)
        external
        returns (int256 amount0, int256 amount1, uint160 sqrtPriceX96After, int24 tickAfter)
    {
        uint160 limit = zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1;
        try IV3PoolSwap(pool).swap(address(this), zeroForOne, amountSpecified, limit, "") {
            revert("V3QuoteProbe: swap did not call back");
        } catch (bytes memory reason) {
            if (reason.length != 128) {
                assembly {
                    revert(add(reason, 32), mload(reason))
                }
            }
            return abi.decode(reason, (int256, int256, uint160, int24));
        }
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external view {
        _report(amount0Delta, amount1Delta);
    }

    function pancakeV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external view {
        _report(amount0Delta, amount1Delta);
    }

    function _report(int256 amount0Delta, int256 amount1Delta) private view {
        // slot0's first two words (sqrtPriceX96, tick) are the same on Uniswap and PancakeSwap V3.
        (bool ok, bytes memory slot0) = msg.sender.staticcall(abi.encodeWithSignature("slot0()"));
        require(ok && slot0.length >= 64, "V3QuoteProbe: no slot0");
        (uint160 sqrtPrice, int24 tick) = abi.decode(slot0, (uint160, int24));
        bytes memory out = abi.encode(amount0Delta, amount1Delta, sqrtPrice, tick);
        assembly {
            revert(add(out, 32), mload(out))
        }
    }
}
