// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./v4-adapter.sol";

/// Asks the PoolManager what a V4 swap would pay without paying it: inside unlock the swap runs,
/// then the callback reverts with the BalanceDelta and `quote` returns it. Use with eth_call.
/// Lets tests check the builder's V4 quotes against the PoolManager's own math.
contract V4QuoteProbe {
    IPoolManager public immutable manager;

    constructor(IPoolManager poolManager) {
        manager = poolManager;
    }

    function quote(PoolKey calldata key, bool zeroForOne, int256 amountSpecified) external returns (int128 amount0, int128 amount1) {
        try manager.unlock(abi.encode(key, zeroForOne, amountSpecified)) {
            revert("V4QuoteProbe: swap did not revert");
        } catch (bytes memory reason) {
            if (reason.length != 64) {
                assembly {
                    revert(add(reason, 32), mload(reason))
                }
            }
            return abi.decode(reason, (int128, int128));
        }
    }

    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        require(msg.sender == address(manager), "V4QuoteProbe: caller is not the PoolManager");
        (PoolKey memory key, bool zeroForOne, int256 amountSpecified) = abi.decode(data, (PoolKey, bool, int256));
        uint160 limit = zeroForOne ? 4295128740 : 1461446703485210103287273052203988822378723970341;
        int256 delta = manager.swap(key, SwapParams(zeroForOne, amountSpecified, limit), "");
        bytes memory out = abi.encode(int128(delta >> 128), int128(delta));
        assembly {
            revert(add(out, 32), mload(out))
        }
    }
}
