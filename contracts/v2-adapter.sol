// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";

interface IV2Pair {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// Adapter for Uniswap-V2-style pairs. The router has already sent the input to the
/// pair; the input is the pair's balance above its reserve.
/// moreInfo: empty -> the fee this adapter was deployed with (30 = Uniswap V2,
/// 25 = PancakeSwap V2), or abi.encode(uint256 feeBps) for a dynamic-fee pair.
contract V2Adapter {
    uint256 public immutable defaultFeeBps;

    constructor(uint256 feeBps) {
        require(feeBps < 10000, "V2Adapter: fee too high");
        defaultFeeBps = feeBps;
    }

    /// Input is the pair's token0.
    function sellBase(address to, address pool, bytes calldata moreInfo) external {
        _swap(to, pool, moreInfo, false);
    }

    /// Input is the pair's token1.
    function sellQuote(address to, address pool, bytes calldata moreInfo) external {
        _swap(to, pool, moreInfo, true);
    }

    function _swap(address to, address pool, bytes calldata moreInfo, bool inputIsToken1) private {
        uint256 feeBps = moreInfo.length >= 32 ? abi.decode(moreInfo, (uint256)) : defaultFeeBps;
        require(feeBps < 10000, "V2Adapter: fee too high");
        uint256 amountOut = _amountOut(IV2Pair(pool), feeBps, inputIsToken1);
        require(amountOut > 0, "V2Adapter: insufficient output");
        if (inputIsToken1) {
            IV2Pair(pool).swap(amountOut, 0, to, new bytes(0));
        } else {
            IV2Pair(pool).swap(0, amountOut, to, new bytes(0));
        }
    }

    function _amountOut(IV2Pair pair, uint256 feeBps, bool inputIsToken1) private view returns (uint256) {
        (uint256 r0, uint256 r1, ) = pair.getReserves();
        (uint256 reserveIn, uint256 reserveOut) = inputIsToken1 ? (r1, r0) : (r0, r1);
        address tokenIn = inputIsToken1 ? pair.token1() : pair.token0();
        uint256 inWithFee = (IERC20Minimal(tokenIn).balanceOf(address(pair)) - reserveIn) * (10000 - feeBps);
        return (inWithFee * reserveOut) / (reserveIn * 10000 + inWithFee);
    }
}
