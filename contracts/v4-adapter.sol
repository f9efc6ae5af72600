// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./safe-erc20.sol";

struct PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct SwapParams {
    bool zeroForOne;
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

interface IPoolManager {
    function unlock(bytes calldata data) external returns (bytes memory);
    function swap(PoolKey memory key, SwapParams memory params, bytes calldata hookData) external returns (int256 delta);
    function sync(address currency) external;
    function settle() external payable returns (uint256 paid);
    function take(address currency, address to, uint256 amount) external;
}

/// Adapter for Uniswap-V4-style pools of ONE PoolManager, following the public router's V4
/// adapter convention (facts/uniswap-v4.md): the router has sent the input to this adapter;
/// moreInfo = abi.encode(address tokenIn, address tokenOut, uint24 fee, int24 tickSpacing) with
/// address(0) for native; the key has no hooks. sellBase and sellQuote behave the same (the
/// direction comes from moreInfo) and `pool` is ignored. Native input arrives as wrapped native
/// and is unwrapped; native output is wrapped before it is sent on. Input a partial fill (the
/// price limit) leaves unspent goes back to the refund address the router appends.
contract V4Adapter {
    uint160 private constant MIN_SQRT_PRICE_PLUS_ONE = 4295128740;
    uint160 private constant MAX_SQRT_PRICE_MINUS_ONE = 1461446703485210103287273052203988822378723970341;

    IPoolManager public immutable manager;
    address public immutable wrappedNative;

    constructor(IPoolManager poolManager, address wrapped) {
        manager = poolManager;
        wrappedNative = wrapped;
    }

    /// Native coin arrives from the PoolManager (take) and the wrapped token (withdraw).
    receive() external payable {
        require(msg.sender == address(manager) || msg.sender == wrappedNative, "V4Adapter: unexpected native");
    }

    function sellBase(address to, address, bytes calldata moreInfo) external {
        _swap(to, moreInfo);
    }

    function sellQuote(address to, address, bytes calldata moreInfo) external {
        _swap(to, moreInfo);
    }

    function _swap(address to, bytes calldata moreInfo) private {
        (address tokenIn, address tokenOut, uint24 fee, int24 tickSpacing) = abi.decode(moreInfo, (address, address, uint24, int24));
        require(tokenIn != tokenOut, "V4Adapter: same token");
        uint256 amount;
        if (tokenIn == address(0)) {
            amount = IERC20Minimal(wrappedNative).balanceOf(address(this));
            if (amount > 0) IWrappedNative(wrappedNative).withdraw(amount);
        } else {
            amount = IERC20Minimal(tokenIn).balanceOf(address(this));
        }
        require(amount > 0 && amount < uint256(uint128(type(int128).max)), "V4Adapter: no input");
        // The router appends (marker << 160 | refund address) after the ABI arguments.
        address refundTo = address(uint160(uint256(bytes32(msg.data[msg.data.length - 32:]))));
        manager.unlock(abi.encode(Job(to, refundTo, tokenIn, tokenOut, fee, tickSpacing, amount)));
    }

    struct Job {
        address to;
        address refundTo;
        address tokenIn;
        address tokenOut;
        uint24 fee;
        int24 tickSpacing;
        uint256 amount;
    }

    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        require(msg.sender == address(manager), "V4Adapter: caller is not the PoolManager");
        Job memory j = abi.decode(data, (Job));
        bool zeroForOne = j.tokenIn < j.tokenOut;
        PoolKey memory key = zeroForOne
            ? PoolKey(j.tokenIn, j.tokenOut, j.fee, j.tickSpacing, address(0))
            : PoolKey(j.tokenOut, j.tokenIn, j.fee, j.tickSpacing, address(0));
        int256 delta = manager.swap(
            key,
            SwapParams(zeroForOne, -int256(j.amount), zeroForOne ? MIN_SQRT_PRICE_PLUS_ONE : MAX_SQRT_PRICE_MINUS_ONE),
            ""
        );
        (int128 paidIn, int128 gotOut) = zeroForOne ? (int128(delta >> 128), int128(delta)) : (int128(delta), int128(delta >> 128));
        require(paidIn <= 0 && gotOut >= 0, "V4Adapter: unexpected delta");
        uint256 owed = uint256(int256(-paidIn));
        _pay(j.tokenIn, owed);
        _deliver(j.tokenOut, j.to, uint256(int256(gotOut)));
        if (owed < j.amount) _refund(j.tokenIn, j.refundTo, j.amount - owed);
        return "";
    }

    function _pay(address currency, uint256 owed) private {
        if (owed == 0) return;
        if (currency == address(0)) {
            manager.settle{value: owed}();
        } else {
            manager.sync(currency);
            SafeERC20Calls.safeTransfer(currency, address(manager), owed);
            manager.settle();
        }
    }

    function _deliver(address currency, address to, uint256 amount) private {
        if (amount == 0) return;
        if (currency == address(0)) {
            manager.take(address(0), address(this), amount);
            IWrappedNative(wrappedNative).deposit{value: amount}();
            SafeERC20Calls.safeTransfer(wrappedNative, to, amount);
        } else {
            manager.take(currency, to, amount);
        }
    }

    function _refund(address currency, address refundTo, uint256 amount) private {
        if (currency == address(0)) {
            IWrappedNative(wrappedNative).deposit{value: amount}();
            SafeERC20Calls.safeTransfer(wrappedNative, refundTo, amount);
        } else {
            SafeERC20Calls.safeTransfer(currency, refundTo, amount);
        }
    }
}
