// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";

interface IV3PoolMint {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
}

/// Adds concentrated liquidity: V3 pools pull the tokens in uniswapV3MintCallback, so an
/// EOA cannot mint directly. The caller approves this helper and owns the position.
contract V3LiquidityHelper {
    address private mintingPool;
    address private payer;

    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 liquidity)
        external
        returns (uint256 amount0, uint256 amount1)
    {
        require(mintingPool == address(0), "V3LiquidityHelper: busy");
        // Only the pool being minted, during this call, may pull the caller's tokens.
        mintingPool = pool;
        payer = msg.sender;
        (amount0, amount1) = IV3PoolMint(pool).mint(msg.sender, tickLower, tickUpper, liquidity, "");
        mintingPool = address(0);
        payer = address(0);
    }

    function uniswapV3MintCallback(uint256 owed0, uint256 owed1, bytes calldata) external {
        _payOwed(owed0, owed1);
    }

    function pancakeV3MintCallback(uint256 owed0, uint256 owed1, bytes calldata) external {
        _payOwed(owed0, owed1);
    }

    function _payOwed(uint256 owed0, uint256 owed1) private {
        require(msg.sender == mintingPool && msg.sender != address(0), "V3LiquidityHelper: unexpected caller");
        if (owed0 > 0) SafeERC20Calls.safeTransferFrom(IV3PoolMint(msg.sender).token0(), payer, msg.sender, owed0);
        if (owed1 > 0) SafeERC20Calls.safeTransferFrom(IV3PoolMint(msg.sender).token1(), payer, msg.sender, owed1);
    }
}
