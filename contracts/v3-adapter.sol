// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";

interface IV3Pool {
    function swap(
        address recipient,
        bool zeroForOne,
        int256 amountSpecified,
        uint160 sqrtPriceLimitX96,
        bytes calldata data
    ) external returns (int256 amount0, int256 amount1);
}

interface IV3Factory {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
}

/// Adapter for Uniswap-V3 / PancakeSwap-V3 style pools of ONE factory (deploy one per
/// source). The router has sent the input to this adapter; it swaps its whole balance.
/// moreInfo = abi.encode(uint160 sqrtPriceLimitX96, bytes abi.encode(address from, address to, uint24 fee)).
contract V3Adapter {
    uint160 private constant MIN_SQRT_RATIO = 4295128739;
    uint160 private constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    IV3Factory public immutable factory;

    constructor(IV3Factory v3Factory) {
        factory = v3Factory;
    }

    function sellBase(address to, address pool, bytes calldata moreInfo) external {
        _swap(to, pool, moreInfo);
    }

    function sellQuote(address to, address pool, bytes calldata moreInfo) external {
        _swap(to, pool, moreInfo);
    }

    function _swap(address to, address pool, bytes calldata moreInfo) private {
        (uint160 limit, bytes memory data) = abi.decode(moreInfo, (uint160, bytes));
        (address fromToken, address toToken, uint24 fee) = abi.decode(data, (address, address, uint24));
        require(pool != address(0) && factory.getPool(fromToken, toToken, fee) == pool, "V3Adapter: pool does not match tokens and fee");
        uint256 amount = IERC20Minimal(fromToken).balanceOf(address(this));
        require(amount > 0 && amount <= uint256(type(int256).max), "V3Adapter: no input");
        bool zeroForOne = fromToken < toToken;
        if (limit == 0) limit = zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1;
        IV3Pool(pool).swap(to, zeroForOne, int256(amount), limit, data);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        _pay(amount0Delta, amount1Delta, data);
    }

    function pancakeV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        _pay(amount0Delta, amount1Delta, data);
    }

    /// Pays the pool what it is owed, but only a pool the factory created: anyone else
    /// calling the callback could otherwise take this adapter's balance.
    function _pay(int256 amount0Delta, int256 amount1Delta, bytes calldata data) private {
        (address fromToken, address toToken, uint24 fee) = abi.decode(data, (address, address, uint24));
        address pool = factory.getPool(fromToken, toToken, fee);
        require(pool != address(0) && msg.sender == pool, "V3Adapter: caller is not a pool");
        require(amount0Delta > 0 || amount1Delta > 0, "V3Adapter: nothing owed");
        uint256 owed = amount0Delta > 0 ? uint256(amount0Delta) : uint256(amount1Delta);
        SafeERC20Calls.safeTransfer(fromToken, msg.sender, owed);
    }
}
